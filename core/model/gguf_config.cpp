#include "core/model/gguf_config.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <utility>
#include <vector>

namespace qkv {
namespace {

// rope_scaling as the model's config.json had it, from what llama.cpp's converter wrote of it:
// rope.scaling.type linear or yarn with its factor; yarn's original context and, where the
// config set them, its attention factor and beta_fast / beta_slow. Keys transformers has no
// counterpart for (llama.cpp's own extrapolation factor, DeepSeek's log multiplier) are refused
// unless they leave the rotation as transformers computes it.
std::optional<nlohmann::json> rotaryScalingOf(const GgufModelReader& r) {
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
    if (r.arch == "deepseek2") {
        // The converter writes DeepSeek's mscale_all_dim as 0.1·mscale_all_dim, and not mscale,
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

// DeepSeek-V2 and -V3 ("deepseek2"). llama.cpp's converter frames latent attention as one key
// head shared by all (head_count_kv 1, key_length kv_lora_rank + rotary) and keeps the heads'
// widths as key_length_mla and value_length_mla; files converted before it split kv_b into k_b
// and v_b have neither, their key_length and value_length are the heads'. The router's gating
// function tells V3 (sigmoid, with exp_probs_b) from V2 (softmax; absent in V2's older files).
void describeDeepseek(const GgufModelReader& r, nlohmann::json& c) {
    const std::int64_t rotary = r.required("rope.dimension_count");
    const bool mla = r.integer("attention.key_length_mla").has_value();
    const std::int64_t key = r.required(mla ? "attention.key_length_mla" : "attention.key_length");
    const std::int64_t value =
        r.required(mla ? "attention.value_length_mla" : "attention.value_length");
    if (key <= rotary)
        r.fail("GGUF metadata: a key head " + std::to_string(key) + " wide has no room beside " +
               std::to_string(rotary) + " rotary dimensions");
    constexpr std::int64_t kSigmoid = 2;  // llama.cpp's expert_gating_func: 1 softmax, 2 sigmoid
    const bool v3 = r.integer("expert_gating_func").value_or(1) == kSigmoid;
    c["model_type"] = v3 ? "deepseek_v3" : "deepseek_v2";
    c["num_key_value_heads"] = c["num_attention_heads"];  // every head has its own key
    c["head_dim"] = rotary;
    c["qk_rope_head_dim"] = rotary;
    c["qk_nope_head_dim"] = key - rotary;
    c["v_head_dim"] = value;
    c["kv_lora_rank"] = r.required("attention.kv_lora_rank");
    if (const auto queryRank = r.integer("attention.q_lora_rank")) c["q_lora_rank"] = *queryRank;
    // The file keeps the checkpoint's rotary pairs (2i, 2i+1), which ggml turns as they are.
    c["rope_interleave"] = true;
    const auto experts = r.integer("expert_count");
    if (!experts) return;
    const std::int64_t groups = r.integer("expert_group_count").value_or(1);
    c["n_routed_experts"] = *experts;
    c["num_experts_per_tok"] = r.required("expert_used_count");
    c["moe_intermediate_size"] = r.required("expert_feed_forward_length");
    c["n_shared_experts"] = r.integer("expert_shared_count").value_or(0);
    c["first_k_dense_replace"] = r.integer("leading_dense_block_count").value_or(0);
    c["routed_scaling_factor"] = r.number("expert_weights_scale").value_or(1.0);
    c["norm_topk_prob"] = r.file.boolean(r.arch + ".expert_weights_norm").value_or(false);
    c["n_group"] = groups;
    c["topk_group"] = r.integer("expert_group_used_count").value_or(groups);
    c["scoring_func"] = v3 ? "sigmoid" : "softmax";
    c["topk_method"] = v3 ? "noaux_tc" : groups > 1 ? "group_limited_greedy" : "greedy";
}
// An integer metadata value, or an array element, of any integer kind.
std::optional<std::int64_t> integerOf(const GgufValue& v) {
    if (const auto* u = std::get_if<std::uint64_t>(&v.value))
        return *u <= std::uint64_t{INT64_MAX} ? std::optional<std::int64_t>(*u) : std::nullopt;
    if (const auto* i = std::get_if<std::int64_t>(&v.value)) return *i;
    return std::nullopt;
}

// The metadata `key` when it holds an array (a per-layer value), else null.
const GgufArray* arrayOrNull(const GgufModelReader& r, const std::string& key) {
    const auto& metadata = r.file.table().metadata;
    const auto value = metadata.find(r.arch + "." + key);
    return value == metadata.end() ? nullptr : std::get_if<GgufArray>(&value->second.value);
}

// One F32 row of per-pair factors, as a list.
std::vector<double> factorRow(const GgufModelReader& r, const GgufTensor& t) {
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

// Gemma 4 ("gemma4"), whose layers differ by kind: attention.sliding_window_pattern marks the
// local ones, whose widths and rotary are key_length_swa, rope.freq_base_swa and
// rope.dimension_count_swa (key_length and rope.freq_base are the global layers'), and
// head_count_kv lists each layer's key/value heads. Global layers without attn_v take their
// values from the key projection (attention_k_eq_v). Their proportional rotary is the
// rope_freqs tensor: divisor 1 for the pairs that turn, 1e30 for those that keep still. Norms
// are stored as they are (no 1 + w).
nlohmann::json gemma4Config(const GgufModelReader& r, std::int64_t vocab, bool tied,
                            const GgufTensors& tensors) {
    const std::int64_t layers = r.required("block_count");
    const std::string patternKey = r.arch + ".attention.sliding_window_pattern";
    const GgufArray* pattern = r.file.array(patternKey);
    if (!pattern || static_cast<std::int64_t>(pattern->size()) != layers)
        r.fail("GGUF metadata " + patternKey + " must mark each of the " + std::to_string(layers) +
               " layers local or global");
    std::vector<bool> local;
    for (const GgufValue& v : *pattern) {
        const bool* isLocal = std::get_if<bool>(&v.value);
        if (!isLocal) r.fail("GGUF metadata " + patternKey + " must hold booleans");
        local.push_back(*isLocal);
    }
    // Each kind's key/value heads: one count for all layers, or one per layer.
    std::optional<std::int64_t> kvHeads[2];  // [local, global]
    const std::string kvKey = r.arch + ".attention.head_count_kv";
    const GgufArray* perLayer = arrayOrNull(r, "attention.head_count_kv");
    for (std::int64_t l = 0; l < layers; ++l) {
        const std::optional<std::int64_t> count =
            perLayer ? (l < static_cast<std::int64_t>(perLayer->size()) ? integerOf((*perLayer)[l])
                                                                        : std::nullopt)
                     : r.integer("attention.head_count_kv");
        auto& kind = kvHeads[local[l] ? 0 : 1];
        if (!count || (kind && *kind != *count))
            r.fail("GGUF metadata " + kvKey + " must give every " +
                   (local[l] ? "local" : "global") + " layer the same key/value heads");
        kind = count;
    }
    const std::int64_t heads = r.required("attention.head_count");
    const std::int64_t globalHeadDim = r.required("attention.key_length"),
                       localHeadDim = r.required("attention.key_length_swa");
    nlohmann::json layerTypes = nlohmann::json::array();
    std::optional<std::int64_t> firstGlobal;
    for (std::int64_t l = 0; l < layers; ++l) {
        layerTypes.push_back(local[l] ? "sliding_attention" : "full_attention");
        if (!local[l] && !firstGlobal) firstGlobal = l;
    }
    const bool keyIsValue =
        firstGlobal && !tensors.count("blk." + std::to_string(*firstGlobal) + ".attn_v.weight");
    nlohmann::json full = {{"rope_type", "default"},
                           {"rope_theta", r.number("rope.freq_base").value_or(1e6)}};
    if (const auto factors = tensors.find("rope_freqs.weight"); factors != tensors.end()) {
        const GgufTensor& t = *factors->second;
        const std::vector<double> divisors = factorRow(r, t);
        if (divisors.size() != static_cast<std::size_t>(globalHeadDim / 2))
            r.fail("tensor " + t.describe() + ": Gemma 4's rotary divisors must be one per pair " +
                   "of a global head");
        std::int64_t turning = 0;
        for (std::size_t i = 0; i < divisors.size(); ++i) {
            if (divisors[i] == 1.0 && turning == static_cast<std::int64_t>(i))
                ++turning;
            else if (divisors[i] < 1e29)
                r.fail("tensor " + t.describe() + ": divisor " + std::to_string(divisors[i]) +
                       " of pair " + std::to_string(i) +
                       " is neither 1 (turning) nor 1e30 (still)");
        }
        full["rope_type"] = "proportional";
        full["partial_rotary_factor"] = 2.0 * static_cast<double>(turning) / globalHeadDim;
    }
    nlohmann::json sliding = {{"rope_type", "default"},
                              {"rope_theta", r.number("rope.freq_base_swa").value_or(1e4)}};
    if (const auto rotated = r.integer("rope.dimension_count_swa");
        rotated && *rotated != localHeadDim)
        sliding["partial_rotary_factor"] = static_cast<double>(*rotated) / localHeadDim;
    const auto feedForward =
        arrayOrNull(r, "feed_forward_length") ? std::nullopt : r.integer("feed_forward_length");
    if (!feedForward)
        r.fail("GGUF metadata " + r.arch +
               ".feed_forward_length per layer (Gemma 4's double-wide MLPs of shared key/value "
               "layers) is not supported yet");
    return {
        {"model_type", "gemma4_text"},
        {"hidden_size", r.required("embedding_length")},
        {"num_hidden_layers", layers},
        {"intermediate_size", *feedForward},
        {"num_attention_heads", heads},
        {"num_key_value_heads", kvHeads[0].value_or(heads)},
        {"num_global_key_value_heads", kvHeads[1].value_or(heads)},
        {"head_dim", localHeadDim},
        {"global_head_dim", globalHeadDim},
        {"attention_k_eq_v", keyIsValue},
        {"vocab_size", vocab},
        {"max_position_embeddings", r.integer("context_length").value_or(131072)},
        {"rms_norm_eps", r.number("attention.layer_norm_rms_epsilon").value_or(1e-6)},
        {"tie_word_embeddings", tied},
        {"sliding_window", r.required("attention.sliding_window")},
        {"final_logit_softcapping", r.number("final_logit_softcapping").value_or(0.0)},
        {"hidden_activation", "gelu_pytorch_tanh"},
        {"layer_types", layerTypes},
        {"rope_parameters", {{"full_attention", full}, {"sliding_attention", sliding}}},
        // What the Gemma 4 reader refuses by name, as the file says it.
        {"hidden_size_per_layer_input", r.integer("embedding_length_per_layer_input").value_or(0)},
        {"num_kv_shared_layers", r.integer("attention.shared_kv_layers").value_or(0)},
        {"enable_moe_block", r.integer("expert_count").value_or(0) > 0},
    };
}

// config.json as transformers writes it for the architecture, from the metadata.
nlohmann::json configOf(const GgufModelReader& r, std::int64_t vocab, bool tied) {
    static const std::map<std::string, std::string> kModelTypes = {
        {"llama", "llama"},        {"qwen2", "qwen2"},
        {"qwen3", "qwen3"},        {"gemma2", "gemma2"},
        {"gemma3", "gemma3_text"}, {"olmo2", "olmo2"},
        {"phi3", "phi3"},          {"smollm3", "smollm3"},
        {"qwen3moe", "qwen3_moe"}, {"deepseek2", "deepseek_v2"},
        {"gpt-oss", "gpt_oss"}};
    const auto type = kModelTypes.find(r.arch);
    // Mixtral is "llama" with experts (llama.cpp's converter writes it as Llama).
    const bool mixtral = r.arch == "llama" && r.integer("expert_count").value_or(0) > 0;
    if (type == kModelTypes.end()) {
        const std::vector<std::string>& read = ggufArchitecturesRead();
        std::string list;
        for (size_t i = 0; i < read.size(); ++i)
            list += (i == 0 ? "" : i + 1 == read.size() ? " and " : ", ") + read[i];
        r.fail("GGUF architecture \"" + r.arch + "\" is not supported (QKV Lab reads " + list +
               ")");
    }
    const std::int64_t d = r.required("embedding_length"),
                       heads = r.required("attention.head_count");
    // A mixture of experts' file may keep only the experts' width.
    const auto dense = r.integer("feed_forward_length"),
               expert = r.integer("expert_feed_forward_length");
    const std::int64_t feedForward = dense    ? *dense
                                     : expert ? *expert
                                              : r.required("feed_forward_length");
    nlohmann::json c = {
        {"model_type", mixtral ? std::string("mixtral") : type->second},
        {"hidden_size", d},
        {"num_hidden_layers", r.required("block_count")},
        {"intermediate_size", feedForward},
        {"num_attention_heads", heads},
        {"num_key_value_heads", r.integer("attention.head_count_kv").value_or(heads)},
        {"vocab_size", vocab},
        {"max_position_embeddings", r.integer("context_length").value_or(2048)},
        {"rope_theta", r.number("rope.freq_base").value_or(10000.0)},
        {"rms_norm_eps", r.number("attention.layer_norm_rms_epsilon").value_or(1e-6)},
        {"tie_word_embeddings", tied},
    };
    const auto headDim = r.integer("attention.key_length");
    if (headDim) c["head_dim"] = *headDim;
    if (auto scaling = rotaryScalingOf(r)) c["rope_scaling"] = std::move(*scaling);
    if (r.arch == "gemma2" || r.arch == "gemma3") {
        // transformers scales queries by query_pre_attn_scalar, which the file does not keep;
        // llama.cpp by 1/sqrt(key_length), except for the 27B models (46 layers of Gemma 2, 62
        // of Gemma 3), which it tells apart by their layer count and scales by d_model / heads.
        const std::int64_t layers = c["num_hidden_layers"];
        const bool large = layers == (r.arch == "gemma2" ? 46 : 62);
        c["query_pre_attn_scalar"] = large ? d / heads : headDim.value_or(d / heads);
        c["final_logit_softcapping"] = r.number("final_logit_softcapping").value_or(0.0);
        c["sliding_window"] = r.integer("attention.sliding_window").value_or(4096);
        c["hidden_activation"] = "gelu_pytorch_tanh";
    }
    if (r.arch == "gemma2")
        c["attn_logit_softcapping"] = r.number("attn_logit_softcapping").value_or(0.0);
    if (r.arch == "gemma3") {
        // Fixed in llama.cpp for Gemma 3, as in transformers' defaults: five local layers per
        // global one, and local layers turning at base 10000, unscaled.
        c["sliding_window_pattern"] = 6;
        c["rope_local_base_freq"] = 10000.0;
    }
    if (mixtral) {  // llama.cpp renormalises the top-k weights, as transformers' Mixtral does
        c["num_local_experts"] = r.required("expert_count");
        c["num_experts_per_tok"] = r.required("expert_used_count");
        c["sliding_window"] = nullptr;
    }
    if (r.arch == "qwen3moe") {
        c["num_experts"] = r.required("expert_count");
        c["num_experts_per_tok"] = r.required("expert_used_count");
        c["moe_intermediate_size"] = r.required("expert_feed_forward_length");
        c["norm_topk_prob"] = true;  // llama.cpp always renormalises Qwen3-MoE's top-k weights
        c["decoder_sparse_step"] = 1;
        c["mlp_only_layers"] = nlohmann::json::array();
    }
    if (r.arch == "deepseek2") describeDeepseek(r, c);
    if (r.arch == "gpt-oss") {
        c["num_local_experts"] = r.required("expert_count");
        c["num_experts_per_tok"] = r.required("expert_used_count");
        c["intermediate_size"] = r.required("expert_feed_forward_length");
        c["sliding_window"] = r.required("attention.sliding_window");
        // gpt-oss's config turns YaRN's ramp without rounding its ends (truncate false), which
        // the file does not keep.
        if (c.contains("rope_scaling") && c["rope_scaling"]["rope_type"] == "yarn")
            c["rope_scaling"]["truncate"] = false;
    }
    // llama.cpp leaves every fourth SmolLM3 layer without rotary, as transformers' default does.
    if (r.arch == "smollm3") c["no_rope_layer_interval"] = 4;
    if (r.arch == "phi3") {
        const auto rotated = r.integer("rope.dimension_count");
        if (rotated) c["partial_rotary_factor"] = static_cast<double>(*rotated) / (d / heads);
        if (const auto original = r.integer("rope.scaling.original_context_length"))
            c["original_max_position_embeddings"] = *original;
        if (const auto window = r.integer("attention.sliding_window"); window && *window > 0)
            c["sliding_window"] = *window;
        else
            c["sliding_window"] = nullptr;
    }
    return c;
}

// llama.cpp's converter turns Llama 3.1's llama3 scaling into a tensor: rope_freqs.weight, a
// float32 divisor of each rotated pair's frequency. It becomes the rotary's frequency_factors.
void readFrequencyFactors(const GgufModelReader& r, const GgufTensor& t, nlohmann::json& config) {
    if (config.contains("rope_scaling"))
        r.fail("the file has both rotary frequency factors (rope_freqs) and " + r.arch +
               ".rope.scaling.type");
    config["rope_scaling"] = {{"rope_type", "frequency_factors"}, {"factors", factorRow(r, t)}};
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
                              {"long_factor", factorRow(r, *longFactors->second)},
                              {"short_factor", factorRow(r, *shortFactors->second)}};
    tensors.erase(longFactors);
    tensors.erase(shortFactors);
}

// ModernBERT ("modern-bert", which llama.cpp converts as an embedding model): LayerNorm's
// epsilon, the local layers' window (attention.sliding_window, the config's local_attention), the
// period of global layers from layer 0 (sliding_window_pattern, global_attn_every_n_layers), and
// the global and local rotary bases (rope.freq_base, rope.freq_base_swa). What the file leaves
// out takes llama.cpp's defaults: base 10000, the global base for local layers, a period of 3,
// and every layer global where there is no window. Biases, which the family refuses, are told
// by their tensors.
nlohmann::json modernBertConfig(const GgufModelReader& r, std::int64_t vocab,
                                const GgufTensors& tensors) {
    const std::int64_t heads = r.required("attention.head_count");
    if (const auto kv = r.integer("attention.head_count_kv"); kv && *kv != heads)
        r.fail("GGUF metadata " + r.arch +
               ".attention.head_count_kv: ModernBERT has as many key/value heads as query heads");
    if (arrayOrNull(r, "attention.sliding_window_pattern"))
        r.fail("GGUF metadata " + r.arch +
               ".attention.sliding_window_pattern as a list of layers is not read (a period of "
               "global layers is)");
    const std::int64_t window = r.integer("attention.sliding_window").value_or(0);
    const double globalBase = r.number("rope.freq_base").value_or(10000.0);
    const auto hasBias = [&](std::initializer_list<const char*> kinds) {
        return std::any_of(tensors.begin(), tensors.end(), [&](const auto& tensor) {
            return std::any_of(kinds.begin(), kinds.end(), [&](const char* kind) {
                return tensor.first.ends_with(std::string(".") + kind + ".bias");
            });
        });
    };
    return {
        {"model_type", "modernbert"},
        {"hidden_size", r.required("embedding_length")},
        {"num_hidden_layers", r.required("block_count")},
        {"intermediate_size", r.required("feed_forward_length")},
        {"num_attention_heads", heads},
        {"num_key_value_heads", heads},
        {"vocab_size", vocab},
        {"max_position_embeddings", r.integer("context_length").value_or(8192)},
        {"norm_eps", r.number("attention.layer_norm_epsilon").value_or(1e-5)},
        {"hidden_activation", r.file.string(r.arch + ".hidden_activation").value_or("gelu")},
        {"global_rope_theta", globalBase},
        {"local_rope_theta", r.number("rope.freq_base_swa").value_or(globalBase)},
        {"local_attention", window > 0 ? window : 128},
        {"global_attn_every_n_layers",
         window > 0 ? r.integer("attention.sliding_window_pattern").value_or(3) : 1},
        {"attention_bias", hasBias({"attn_qkv", "attn_output"})},
        {"mlp_bias", hasBias({"ffn_up", "ffn_down"})},
    };
}

}  // namespace

nlohmann::json configFromGguf(const GgufModelReader& r, std::int64_t vocab, bool tied,
                              GgufTensors& tensors) {
    nlohmann::json config = r.arch == "gemma4"        ? gemma4Config(r, vocab, tied, tensors)
                            : r.arch == "modern-bert" ? modernBertConfig(r, vocab, tensors)
                                                      : configOf(r, vocab, tied);
    if (const auto factors = tensors.find("rope_freqs.weight"); factors != tensors.end()) {
        if (r.arch != "gemma4") readFrequencyFactors(r, *factors->second, config);
        tensors.erase(factors);
    }
    readLongRope(r, tensors, config);
    return config;
}

const std::vector<std::string>& ggufArchitecturesRead() {
    static const std::vector<std::string> read = {
        "llama", "qwen2",   "qwen3",     "qwen3moe", "gemma2", "gemma3",     "olmo2",
        "phi3",  "smollm3", "deepseek2", "gpt-oss",  "gemma4", "modern-bert"};
    return read;
}

}  // namespace qkv
