#pragma once
// MXFP4 test data made independently of the project's decoder: OCP Microscaling v1.0's
// quantisation of 32-value blocks (scale 2^(floor(log2 max|v|) - 2), each value rounded to the
// nearest E2M1 value, ties to the even code, saturating at 6), packed as gpt-oss's files pack it.
#include <array>
#include <cstdint>
#include <filesystem>

namespace qkv::test {

struct Mxfp4Block {
    std::uint8_t scale = 127;              // E8M0: 2^(scale - 127)
    std::array<std::uint8_t, 16> bytes{};  // element 2b in byte b's low nibble, 2b+1 in its high
    std::array<float, 32> values{};        // what the block stands for, computed in double
};
Mxfp4Block quantiseMxfp4Block(const float* values);

// A gpt-oss checkpoint folder `source` (float weights) written twice: into `mxfp4Dir` as the Hub
// stores it (every mlp.experts.gate_up_proj / down_proj [E, in, out] as _blocks U8
// [E, out, in/32, 16] and _scales U8 [E, out, in/32], quantization_config "mxfp4"), and into
// `dequantisedDir` with those experts as the float32 values the blocks stand for. Every other
// tensor is float32 in both.
void writeMxfp4Twins(const std::filesystem::path& source, const std::filesystem::path& mxfp4Dir,
                     const std::filesystem::path& dequantisedDir);

}  // namespace qkv::test
