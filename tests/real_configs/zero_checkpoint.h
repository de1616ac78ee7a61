#pragma once
// A Hub checkpoint's tensors at their full shapes, all zeros: a safetensors header and a hole of
// the data's size, so that gigabytes of weights take no disk.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace qkv::test {

struct TensorShape {
    std::string name;
    std::vector<std::int64_t> shape;
    const char* dtype = "BF16";  // or "U8" (MXFP4 blocks and scales)
};

void writeZeros(const std::filesystem::path& file, const std::vector<TensorShape>& tensors);

}  // namespace qkv::test
