#pragma once
// Writes a GPT-2-shaped checkpoint with random float32 weights (streamed, so a 500 MB model
// needs no 500 MB buffer), keyed like the Hub's gpt2 file.
#include <filesystem>

namespace qkv::bench {

struct Gpt2Shape {
    int layers = 12;
    int heads = 12;
    int dModel = 768;
    int vocab = 50257;
    int context = 1024;
};

void writeRandomGpt2(const std::filesystem::path& dir, const Gpt2Shape& shape, unsigned seed);

}  // namespace qkv::bench
