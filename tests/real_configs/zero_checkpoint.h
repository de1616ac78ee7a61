#pragma once
// A Hub checkpoint's tensors at their full shapes, all zeros: a safetensors header and a hole of
// the data's size, so that gigabytes of weights take no disk; and the real configs' files.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/model/architecture.h"

namespace qkv::test {

struct TensorShape {
    std::string name;
    std::vector<std::int64_t> shape;
    const char* dtype = "BF16";  // or "U8" (MXFP4 blocks and scales)
};

void writeZeros(const std::filesystem::path& file, const std::vector<TensorShape>& tensors);

// tests/data/real-configs/NAME.json copied into `dir` as config.json, and read.
Architecture realConfigIn(const std::string& name, const std::filesystem::path& dir);

// A real config's test name: its file name with every other character than a letter or a digit
// made '_' ("Qwen3.5-9B" -> "Qwen3_5_9B"), for INSTANTIATE_TEST_SUITE_P.
struct RealConfigName {
    template <class Param>
    std::string operator()(const testing::TestParamInfo<Param>& info) const {
        return nameOf(info.param.name);
    }
    static std::string nameOf(std::string name);
};

}  // namespace qkv::test
