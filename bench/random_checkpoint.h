#pragma once
// Writes a GPT-2-shaped checkpoint with random float32 weights (streamed, so a 500 MB model
// needs no 500 MB buffer), keyed like the Hub's gpt2 file.
#include <filesystem>

#include "core/train/model_shape.h"

namespace qkv::bench {

// GPT-2 small (124M): the benchmark's model.
train::ModelShape gpt2Small();

void writeRandomGpt2(const std::filesystem::path& dir, const train::ModelShape& shape,
                     unsigned seed);

}  // namespace qkv::bench
