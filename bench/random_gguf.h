#pragma once
// GGUF files for the benchmark, as llama-quantize lays them out, of random but valid blocks
// (random codes and sub-block scales under a fixed block scale, weights of a few hundredths),
// streamed tensor by tensor (never the whole file in memory).
#include <filesystem>

#include "core/model/architecture.h"

namespace qkv::bench {

// A Llama-3.1-8B-shaped file in the Q4_K_M mix (Q4_K matrices; Q6_K for the output head and, in
// the layers llama.cpp gives more bits, attn_v and ffn_down; F32 norms and Llama 3.1's
// rope_freqs), about 4.9 GB.
void writeRandomLlamaGguf(const std::filesystem::path& file, const Architecture& shape,
                          unsigned seed);

// Qwen3-30B-A3B's shape (qwen3_30b_a3b()) as Ollama's qwen3:30b-a3b-q8_0 keeps it: Q8_0
// matrices, each layer's experts stacked per projection, F32 norms and router (random, so that
// tokens choose different experts), about 32.5 GB.
void writeRandomQwen3MoeGguf(const std::filesystem::path& file, const Architecture& shape,
                             unsigned seed);

}  // namespace qkv::bench
