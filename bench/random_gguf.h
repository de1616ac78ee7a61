#pragma once
// A Llama-3.1-8B-shaped GGUF file as llama-quantize's Q4_K_M mix lays it out (Q4_K matrices;
// Q6_K for the output head and, in the layers llama.cpp gives more bits, attn_v and ffn_down;
// F32 norms and Llama 3.1's rope_freqs), of random but valid blocks: random 4- and 6-bit codes
// and sub-block scales under a fixed super-block scale, weights of a few hundredths. Streamed
// tensor by tensor (never the whole file in memory), about 4.9 GB.
#include <filesystem>

#include "core/model/architecture.h"

namespace qkv::bench {

void writeRandomLlamaGguf(const std::filesystem::path& file, const Architecture& shape,
                          unsigned seed);

}  // namespace qkv::bench
