#pragma once
// safetensors writer: the layout documented in core/io/safetensors.h, as the reference
// implementation writes it — "__metadata__" first, tensors in name order, data packed in the
// same order, and the JSON header padded with spaces to a multiple of 8 bytes so that the data
// region (and every float32 tensor in it) is 8-byte aligned. The file is written atomically.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace qkv {

struct TensorToWrite {
    std::string name;
    std::vector<std::int64_t> shape;
    const float* data = nullptr;  // row-major, element count = product of shape
};

// Throws qkv::Error for an empty or repeated name, a name "__metadata__", a negative dimension,
// or when the file cannot be written (any previous file is then left untouched).
void writeSafetensors(const std::filesystem::path& file, const std::vector<TensorToWrite>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

}  // namespace qkv
