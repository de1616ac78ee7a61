#pragma once
// The config.json Hugging Face would write for the model a GGUF file's metadata describes, with
// what llama.cpp fixes for an architecture set as it does, and the rotary factors the converter
// kept as tensors (Llama 3.1's rope_freqs, Phi-3's LongRoPE rows) read back into rope_scaling.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/model/gguf_model_reader.h"

namespace qkv {

// `vocab`: the embedding's rows; `tied`: the file has no output matrix. The rotary factor tensors
// read are taken out of `tensors`. Throws qkv::Error for an architecture or a key QKV Lab does
// not read.
nlohmann::json configFromGguf(const GgufModelReader& r, std::int64_t vocab, bool tied,
                              GgufTensors& tensors);

// The GGUF architectures (general.architecture) QKV Lab reads, for lists and refusals.
const std::vector<std::string>& ggufArchitecturesRead();

}  // namespace qkv
