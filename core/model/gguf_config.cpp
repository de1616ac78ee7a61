#include "core/model/gguf_config.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <utility>
#include <vector>

#include "core/model/model_family.h"

namespace qkv {
namespace {

// rope_scaling as the model's config.json had it, from what llama.cpp's converter wrote of it:
// rope.scaling.type linear or yarn with its factor; yarn's original context and, where the
// config set them, its attention factor and beta_fast / beta_slow. Keys transformers has no
// counterpart for (llama.cpp's own extrapolation factor, DeepSeek's log multiplier) are refused
// unless they leave the rotation as transformers computes it.
std::optional<nlohmann::json> rotaryScalingOf(const GgufModelReader& r,
                                              const GgufDecoderOptions& options) {
    const auto type = r.file.string(r.arch + ".rope.scaling.type");
    if (!type || *type == "none") return std::nullopt;
    if (*type != "linear" && *type != "yarn")
        r.fail("GGUF rotary scaling \"" + *type + "\" (" + r.arch +
               ".rope.scaling.type) is not read yet (none, linear and yarn are)");
    const auto factor = r.number("rope.scaling.factor");
    if (!factor) r.fail("GGUF metadata " + r.arch + ".rope.scaling.factor is missing");
    nlohmann::json scaling = {{"rope_type", *type}, {"factor", *factor}};
    if (*type == "linear") return scaling;
    auto refuseUnless = [&](const char* key, double neutral) {
        if (const auto value = r.number(std::string("rope.scaling.") + key);
            value && *value != neutral)
            r.fail("GGUF metadata " + r.arch + ".rope.scaling." + key + " = " +
                   std::to_string(*value) + " has no Hugging Face counterpart QKV Lab reads yet");
    };
    refuseUnless("yarn_ext_factor", 1.0);
    refuseUnless("attn_factor", 1.0);
    if (options.yarnLogMultiplierIsMscale) {
        // DeepSeek's converter writes mscale_all_dim as 0.1·mscale_all_dim, and not mscale,
        // which DeepSeek's published configs set equal to it (V2 0.707, V3 1.0): YaRN's own
        // attention factor is then 1 and the softmax scale takes mscale².
        if (const auto multiplier = r.number("rope.scaling.yarn_log_multiplier"))
            scaling["mscale"] = scaling["mscale_all_dim"] = *multiplier / 0.1;
    } else {
        refuseUnless("yarn_log_multiplier", 0.0);
    }
    if (const auto original = r.integer("rope.scaling.original_context_length"))
        scaling["original_max_position_embeddings"] = *original;
    for (const auto& [gguf, hf] :
         {std::pair{"yarn_attn_factor", "attention_factor"},
          std::pair{"yarn_beta_fast", "beta_fast"}, std::pair{"yarn_beta_slow", "beta_slow"}})
        if (const auto value = r.number(std::string("rope.scaling.") + gguf)) scaling[hf] = *value;
    return scaling;
}

// llama.cpp's converter turns Llama 3.1's llama3 scaling into a tensor: rope_freqs.weight, a
// float32 divisor of each rotated pair's frequency. It becomes the rotary's frequency_factors.
void readFrequencyFactors(const GgufModelReader& r, const GgufTensor& t, nlohmann::json& config) {
    if (config.contains("rope_scaling"))
        r.fail("the file has both rotary frequency factors (rope_freqs) and " + r.arch +
               ".rope.scaling.type");
    config["rope_scaling"] = {{"rope_type", "frequency_factors"}, {"factors", ggufFactorRow(r, t)}};
}

// Phi-3.5's and Phi-4-mini's LongRoPE: the converter keeps rope_scaling's long_factor and
// short_factor as the tensors rope_factors_long and rope_factors_short (the original context is
// rope.scaling.original_context_length). Its rope.scaling.attn_factor is the one transformers
// computes from the two contexts, so it is not read.
void readLongRope(const GgufModelReader& r, GgufTensors& tensors, nlohmann::json& config) {
    const auto longFactors = tensors.find("rope_factors_long.weight");
    const auto shortFactors = tensors.find("rope_factors_short.weight");
    if (longFactors == tensors.end() && shortFactors == tensors.end()) return;
    if (longFactors == tensors.end() || shortFactors == tensors.end())
        r.fail("the file has one of rope_factors_long and rope_factors_short without the other");
    if (config.contains("rope_scaling"))
        r.fail("the file has both LongRoPE factors and other rotary scaling");
    config["rope_scaling"] = {{"rope_type", "longrope"},
                              {"long_factor", ggufFactorRow(r, *longFactors->second)},
                              {"short_factor", ggufFactorRow(r, *shortFactors->second)}};
    tensors.erase(longFactors);
    tensors.erase(shortFactors);
}

}  // namespace

std::optional<std::int64_t> ggufInteger(const GgufValue& v) {
    if (const auto* u = std::get_if<std::uint64_t>(&v.value))
        return *u <= std::uint64_t{INT64_MAX} ? std::optional<std::int64_t>(*u) : std::nullopt;
    if (const auto* i = std::get_if<std::int64_t>(&v.value)) return *i;
    return std::nullopt;
}

const GgufArray* ggufArrayOrNull(const GgufModelReader& r, const std::string& key) {
    const auto& metadata = r.file.table().metadata;
    const auto value = metadata.find(r.arch + "." + key);
    return value == metadata.end() ? nullptr : std::get_if<GgufArray>(&value->second.value);
}

std::vector<std::int64_t> ggufKeyValueHeadsPerLayer(const GgufModelReader& r,
                                                    const std::string& otherKind) {
    const GgufArray* heads = ggufArrayOrNull(r, "attention.head_count_kv");
    const std::int64_t layers = r.required("block_count");
    if (!heads || static_cast<std::int64_t>(heads->size()) != layers)
        r.fail("GGUF metadata " + r.arch +
               ".attention.head_count_kv must list each layer's key/value heads (0: " + otherKind +
               ")");
    std::vector<std::int64_t> out;
    for (const GgufValue& v : *heads) {
        const std::optional<std::int64_t> n = ggufInteger(v);
        if (!n || *n < 0)
            r.fail("GGUF metadata " + r.arch +
                   ".attention.head_count_kv holds a value that is not a non-negative integer");
        out.push_back(*n);
    }
    return out;
}

std::vector<double> ggufFactorRow(const GgufModelReader& r, const GgufTensor& t) {
    if (t.ggmlType != 0 || t.ne.size() != 1)
        r.fail("tensor " + t.describe() + ": rotary factors must be one F32 row");
    std::vector<double> factors(t.ne[0]);
    for (std::size_t i = 0; i < factors.size(); ++i) {
        float f;
        std::memcpy(&f, t.data + i * sizeof f, sizeof f);
        factors[i] = f;
    }
    return factors;
}

nlohmann::json ggufDecoderConfig(const GgufModelReader& r, std::int64_t vocab, bool tied,
                                 const std::string& modelType, const GgufDecoderOptions& options) {
    const std::int64_t d = r.required("embedding_length"),
                       heads = r.required("attention.head_count");
    // A mixture of experts' file may keep only the experts' width.
    const auto dense = r.integer("feed_forward_length"),
               expert = r.integer("expert_feed_forward_length");
    const std::int64_t feedForward = dense    ? *dense
                                     : expert ? *expert
                                              : r.required("feed_forward_length");
    // A hybrid lists key/value heads per layer (ggufKeyValueHeadsPerLayer): its family reads them.
    const std::int64_t kvHeads = ggufArrayOrNull(r, "attention.head_count_kv")
                                     ? heads
                                     : r.integer("attention.head_count_kv").value_or(heads);
    nlohmann::json c = {
        {"model_type", modelType},
        {"hidden_size", d},
        {"num_hidden_layers", r.required("block_count")},
        {"intermediate_size", feedForward},
        {"num_attention_heads", heads},
        {"num_key_value_heads", kvHeads},
        {"vocab_size", vocab},
        {"max_position_embeddings", r.integer("context_length").value_or(2048)},
        {"rope_theta", r.number("rope.freq_base").value_or(10000.0)},
        {"rms_norm_eps", r.number("attention.layer_norm_rms_epsilon").value_or(1e-6)},
        {"tie_word_embeddings", tied},
    };
    if (const auto headDim = r.integer("attention.key_length")) c["head_dim"] = *headDim;
    if (auto scaling = rotaryScalingOf(r, options)) c["rope_scaling"] = std::move(*scaling);
    return c;
}

const ModelFamily* findGgufFamily(const std::string& arch) {
    for (const ModelFamily& f : modelFamilies())
        if (std::find(f.gguf.architectures.begin(), f.gguf.architectures.end(), arch) !=
            f.gguf.architectures.end())
            return &f;
    return nullptr;
}

nlohmann::json configFromGguf(const GgufModelReader& r, std::int64_t vocab, bool tied,
                              GgufTensors& tensors) {
    const ModelFamily* family = findGgufFamily(r.arch);
    if (!family) {
        const std::vector<std::string>& read = ggufArchitecturesRead();
        std::string list;
        for (size_t i = 0; i < read.size(); ++i)
            list += (i == 0 ? "" : i + 1 == read.size() ? " and " : ", ") + read[i];
        r.fail("GGUF architecture \"" + r.arch + "\" is not supported (QKV Lab reads " + list +
               ")");
    }
    nlohmann::json config = family->gguf.config ? family->gguf.config(r, vocab, tied, tensors)
                                                : ggufDecoderConfig(r, vocab, tied, family->name);
    // Rotary factors the family did not read itself: Llama 3.1's, Phi-3's.
    if (const auto factors = tensors.find("rope_freqs.weight"); factors != tensors.end()) {
        readFrequencyFactors(r, *factors->second, config);
        tensors.erase(factors);
    }
    readLongRope(r, tensors, config);
    return config;
}

const std::vector<std::string>& ggufArchitecturesRead() {
    static const std::vector<std::string> read = [] {
        std::vector<std::string> all;
        for (const ModelFamily& f : modelFamilies())
            all.insert(all.end(), f.gguf.architectures.begin(), f.gguf.architectures.end());
        return all;
    }();
    return read;
}

}  // namespace qkv
