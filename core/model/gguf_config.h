#pragma once
// The config.json Hugging Face would write for the model a GGUF file's metadata describes: the
// family that reads the architecture (ModelFamily::gguf) writes it, with the keys every decoder
// shares from ggufDecoderConfig, and the rotary factors the converter kept as tensors (Llama
// 3.1's rope_freqs, Phi-3's LongRoPE rows) are read back into rope_scaling.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/model/gguf_model_reader.h"

namespace qkv {

struct ModelFamily;

// `vocab`: the embedding's rows; `tied`: the file has no output matrix. The rotary factor tensors
// read are taken out of `tensors`. Throws qkv::Error for an architecture or a key QKV Lab does
// not read.
nlohmann::json configFromGguf(const GgufModelReader& r, std::int64_t vocab, bool tied,
                              GgufTensors& tensors);

// The family that reads a GGUF architecture (general.architecture), or nullptr.
const ModelFamily* findGgufFamily(const std::string& arch);
// The GGUF architectures QKV Lab reads, for lists and refusals.
const std::vector<std::string>& ggufArchitecturesRead();

// For the families' readers.
struct GgufDecoderOptions {
    // rope.scaling.yarn_log_multiplier is DeepSeek's 0.1·mscale_all_dim (else refused unless 0).
    bool yarnLogMultiplierIsMscale = false;
};
// The keys every decoder's config shares (widths, heads, context, rotary base and scaling), under
// `modelType`.
nlohmann::json ggufDecoderConfig(const GgufModelReader& r, std::int64_t vocab, bool tied,
                                 const std::string& modelType,
                                 const GgufDecoderOptions& options = {});
// An integer metadata value, or an array element, of any integer kind.
std::optional<std::int64_t> ggufInteger(const GgufValue& v);
// The metadata `key` when it holds an array (a per-layer value), else null.
const GgufArray* ggufArrayOrNull(const GgufModelReader& r, const std::string& key);
// A hybrid's attention.head_count_kv, one entry per layer: 0 where the layer has no attention.
// Throws naming the key unless it lists every layer.
std::vector<std::int64_t> ggufKeyValueHeadsPerLayer(const GgufModelReader& r,
                                                    const std::string& otherKind);
// One F32 row of per-pair factors, as a list.
std::vector<double> ggufFactorRow(const GgufModelReader& r, const GgufTensor& t);

}  // namespace qkv
