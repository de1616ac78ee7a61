#include "core/model/gguf_checkpoint.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <utility>

#include "core/backend/ggml_blocks.h"
#include "core/io/gguf.h"
#include "core/model/gguf_tokenizer.h"
#include "core/util/error.h"

namespace qkv {
namespace {

// The files (one, or a split model's shards) and the tensors derived from them (norms less one,
// DeepSeek's key/value projection put back together).
class GgufSource : public TensorSource {
  public:
    void checkUnchanged() const override {
        for (const auto& file : files) file->checkUnchanged();
    }
    std::vector<std::unique_ptr<GgufFile>> files;  // the first holds the metadata
    std::deque<std::vector<std::uint8_t>> derived;
};

// llama.cpp's gguf-split names a split model's shards NAME-00001-of-00003.gguf: the first holds
// the metadata, each a share of the tensors. Any shard names them all; a lone file is itself.
std::vector<std::filesystem::path> shardsOf(const std::filesystem::path& path) {
    static const std::regex kShard(R"((.*)-(\d{5})-of-(\d{5})\.gguf)");
    const std::string name = path.filename().string();
    std::smatch m;
    if (!std::regex_match(name, m, kShard)) return {path};
    const int count = std::stoi(m[3].str());
    if (count < 1 || std::stoi(m[2].str()) > count)
        throw Error(path.string() + ": not a shard of a split GGUF model (" + m[2].str() + " of " +
                    m[3].str() + ")");
    std::vector<std::filesystem::path> shards;
    for (int i = 1; i <= count; ++i) {
        char number[12];  // room for any int, so the compiler sees no truncation
        std::snprintf(number, sizeof number, "%05d", i);
        shards.push_back(path.parent_path() /
                         (m[1].str() + "-" + number + "-of-" + m[3].str() + ".gguf"));
        std::error_code ec;
        if (!std::filesystem::is_regular_file(shards.back(), ec))
            throw Error(shards.back().string() + ": this shard of the split model " + name +
                        " belongs to is missing");
    }
    return shards;
}

struct Reader {
    const GgufFile& file;
    std::string arch;

    [[noreturn]] void fail(const std::string& message) const {
        throw Error(file.path().string() + ": " + message);
    }
    std::optional<std::int64_t> integer(const std::string& key) const {
        return file.integer(arch + "." + key);
    }
    std::optional<double> number(const std::string& key) const {
        return file.number(arch + "." + key);
    }
    std::int64_t required(const std::string& key) const {
        const auto value = integer(key);
        if (!value) fail("GGUF metadata " + arch + "." + key + " is missing");
        return *value;
    }
};

// rope_scaling as the model's config.json had it, from what llama.cpp's converter wrote of it:
// rope.scaling.type linear or yarn with its factor; yarn's original context and, where the
// config set them, its attention factor and beta_fast / beta_slow. Keys transformers has no
// counterpart for (llama.cpp's own extrapolation factor, DeepSeek's log multiplier) are refused
// unless they leave the rotation as transformers computes it.
std::optional<nlohmann::json> rotaryScalingOf(const Reader& r) {
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
void describeDeepseek(const Reader& r, nlohmann::json& c) {
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

using GgufTensors = std::map<std::string, const GgufTensor*>;

// The metadata `key` when it holds an array (a per-layer value), else null.
const GgufArray* arrayOrNull(const Reader& r, const std::string& key) {
    const auto& metadata = r.file.table().metadata;
    const auto value = metadata.find(r.arch + "." + key);
    return value == metadata.end() ? nullptr : std::get_if<GgufArray>(&value->second.value);
}

// One F32 row of per-pair factors, as a list.
std::vector<double> factorRow(const Reader& r, const GgufTensor& t) {
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
nlohmann::json gemma4Config(const Reader& r, std::int64_t vocab, bool tied,
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
nlohmann::json configOf(const Reader& r, std::int64_t vocab, bool tied) {
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
    if (type == kModelTypes.end())
        r.fail("GGUF architecture \"" + r.arch +
               "\" is not supported (QKV Lab reads llama, qwen2, qwen3, qwen3moe, gemma2, gemma3, "
               "olmo2, phi3, smollm3, deepseek2, gpt-oss and gemma4)");
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
void readFrequencyFactors(const Reader& r, const GgufTensor& t, nlohmann::json& config) {
    if (config.contains("rope_scaling"))
        r.fail("the file has both rotary frequency factors (rope_freqs) and " + r.arch +
               ".rope.scaling.type");
    config["rope_scaling"] = {{"rope_type", "frequency_factors"}, {"factors", factorRow(r, t)}};
}

// Phi-3.5's and Phi-4-mini's LongRoPE: the converter keeps rope_scaling's long_factor and
// short_factor as the tensors rope_factors_long and rope_factors_short (the original context is
// rope.scaling.original_context_length). Its rope.scaling.attn_factor is the one transformers
// computes from the two contexts, so it is not read.
void readLongRope(const Reader& r, GgufTensors& tensors, nlohmann::json& config) {
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

// Hugging Face's name of a GGUF tensor of the architecture (`modelType` tells Mixtral from Llama);
// empty for one QKV Lab does not know.
std::string hfName(const std::string& arch, const std::string& modelType, const std::string& name) {
    static const std::map<std::string, std::string> kTop = {
        {"token_embd.weight", "model.embed_tokens.weight"},
        {"output_norm.weight", "model.norm.weight"},
        {"output.weight", "lm_head.weight"}};
    if (auto top = kTop.find(name); top != kTop.end()) return top->second;
    static const std::regex kBlock(R"(blk\.(\d+)\.([a-z_]+)\.(weight|bias))");
    std::smatch m;
    if (!std::regex_match(name, m, kBlock)) return {};
    const bool gemma = arch == "gemma2" || arch == "gemma3" || arch == "gemma4",
               phi = arch == "phi3";
    const std::map<std::string, std::string> layer = {
        {"attn_norm", "input_layernorm"},
        {"attn_q", "self_attn.q_proj"},
        {"attn_k", "self_attn.k_proj"},
        {"attn_v", "self_attn.v_proj"},
        {"attn_qkv", "self_attn.qkv_proj"},
        {"attn_output", "self_attn.o_proj"},
        {"attn_q_norm", "self_attn.q_norm"},
        {"attn_k_norm", "self_attn.k_norm"},
        {"ffn_norm", gemma ? "pre_feedforward_layernorm" : "post_attention_layernorm"},
        {"post_attention_norm", "post_attention_layernorm"},
        {"post_ffw_norm", "post_feedforward_layernorm"},
        {"ffn_gate", "mlp.gate_proj"},
        {"ffn_up", phi ? "mlp.gate_up_proj" : "mlp.up_proj"},
        {"ffn_down", "mlp.down_proj"},
        {"ffn_gate_inp", "mlp.gate"},  // a mixture of experts' router
        {"ffn_gate_exps", "mlp.experts.*.gate_proj"},
        {"ffn_up_exps", "mlp.experts.*.up_proj"},
        {"ffn_down_exps", "mlp.experts.*.down_proj"},
        // DeepSeek's latent attention and shared experts; k_b and v_b are put back together as
        // kv_b_proj (keyValueUpOf).
        {"attn_q_a", "self_attn.q_a_proj"},
        {"attn_q_a_norm", "self_attn.q_a_layernorm"},
        {"attn_q_b", "self_attn.q_b_proj"},
        {"attn_kv_a_mqa", "self_attn.kv_a_proj_with_mqa"},
        {"attn_kv_a_norm", "self_attn.kv_a_layernorm"},
        {"attn_kv_b", "self_attn.kv_b_proj"},
        {"attn_k_b", "self_attn.k_b_proj"},
        {"attn_v_b", "self_attn.v_b_proj"},
        {"ffn_gate_shexp", "mlp.shared_experts.gate_proj"},
        {"ffn_up_shexp", "mlp.shared_experts.up_proj"},
        {"ffn_down_shexp", "mlp.shared_experts.down_proj"}};
    const std::string blk = "model.layers." + m[1].str() + ".", kind = m[2].str();
    // DeepSeek-V3's router bias and gpt-oss's sinks, which Hugging Face names without a suffix.
    if (kind == "exp_probs_b" && m[3].str() == "bias")
        return blk + "mlp.gate.e_score_correction_bias";
    if (kind == "attn_sinks" && m[3].str() == "weight") return blk + "self_attn.sinks";
    // Experts' biases stay stacked, one row per expert, under gpt-oss's names (down_proj_bias).
    if (kind.ends_with("_exps") && m[3].str() == "bias")
        return blk + "mlp.experts." + kind.substr(4, kind.size() - 9) + "_proj_bias";
    if (arch == "gpt-oss" && kind == "ffn_gate_inp") return blk + "mlp.router." + m[3].str();
    if (kind == "layer_output_scale" && m[3].str() == "weight") return blk + "layer_scalar";
    // Mixtral's mixture: block_sparse_moe, its experts' w1 (gate), w3 (up) and w2 (down).
    static const std::map<std::string, std::string> kMixtral = {
        {"ffn_gate_inp", "block_sparse_moe.gate"},
        {"ffn_gate_exps", "block_sparse_moe.experts.*.w1"},
        {"ffn_up_exps", "block_sparse_moe.experts.*.w3"},
        {"ffn_down_exps", "block_sparse_moe.experts.*.w2"}};
    if (modelType == "mixtral")
        if (const auto expert = kMixtral.find(m[2].str()); expert != kMixtral.end())
            return "model.layers." + m[1].str() + "." + expert->second + "." + m[3].str();
    const auto module = layer.find(m[2].str());
    if (module == layer.end()) return {};
    return "model.layers." + m[1].str() + "." + module->second + "." + m[3].str();
}

// Llama's converter interleaved each head's rows of W_Q and W_K (GGUF row 2i + j of a head is
// Hugging Face's row j·d/2 + i) so that ggml's adjacent-pair rotary equals rotate-half. The rows
// stay where they are (an 8B model's 377 MB are not copied); the products gather their outputs
// back into Hugging Face's order (TensorInfo::rowOrder).
std::vector<int> ggmlRotaryRowOrder(std::int64_t rows, std::int64_t heads) {
    const std::int64_t headDim = rows / heads, half = headDim / 2;
    std::vector<int> order(static_cast<std::size_t>(rows));
    for (std::int64_t h = 0; h < heads; ++h)
        for (std::int64_t j = 0; j < 2; ++j)
            for (std::int64_t i = 0; i < half; ++i)
                order[h * headDim + j * half + i] = static_cast<int>(h * headDim + 2 * i + j);
    return order;
}

// llama.cpp stacks a layer's experts in one tensor, ne = [in, out, experts]; transformers keeps
// one matrix per expert. Each expert's slice is whole rows of blocks, viewed in place.
void splitExperts(const Reader& r, const GgufTensor& g, TensorInfo stacked,
                  std::vector<TensorInfo>& infos) {
    const std::int64_t experts = stacked.shape.size() == 3 ? stacked.shape[0] : 0;
    if (experts < 1 || stacked.byteSize % static_cast<std::size_t>(experts) != 0)
        r.fail("tensor " + g.describe() + " is not a stack of experts' matrices");
    const std::size_t bytes = stacked.byteSize / static_cast<std::size_t>(experts);
    const std::size_t star = stacked.name.find('*');
    for (std::int64_t e = 0; e < experts; ++e) {
        TensorInfo one = stacked;
        one.name.replace(star, 1, std::to_string(e));
        one.shape = {stacked.shape[1], stacked.shape[2]};
        one.data = stacked.data + static_cast<std::size_t>(e) * bytes;
        one.byteSize = bytes;
        infos.push_back(std::move(one));
    }
}

// A tensor's values as float32, decoded from its stored type.
std::vector<float> decoded(const TensorInfo& t) {
    std::vector<float> values(static_cast<std::size_t>(t.elementCount()));
    if (t.dtype == DType::Block)
        decodeGgmlBlocks(t.blockType, t.data, 0, values.size(), values.data());
    else
        widen(t.blockType, t.data, values.size(), values.data());
    return values;
}

// Newer converters split DeepSeek's kv_b_proj for llama.cpp's absorbed attention: k_b holds each
// head's key rows transposed (shape [heads, kv_lora_rank, nope]), v_b its value rows ([heads,
// value, kv_lora_rank]). Hugging Face's kv_b_proj, [heads·(nope + value), kv_lora_rank], is put
// back together in float32 whatever the two are stored in: a transposed block format cannot be
// viewed in place, and the two are about 2 % of a DeepSeek model's weights.
TensorInfo keyValueUpOf(const Reader& r, const TensorInfo& keys, const TensorInfo& values,
                        GgufSource& source) {
    const bool shaped = keys.shape.size() == 3 && values.shape.size() == 3 &&
                        keys.shape[0] == values.shape[0] && keys.shape[1] == values.shape[2];
    if (!shaped)
        r.fail("tensors " + keys.describe() + " and " + values.describe() +
               " are not the halves of one latent key/value projection");
    const std::int64_t heads = keys.shape[0], rank = keys.shape[1], nope = keys.shape[2],
                       width = values.shape[1];
    const std::vector<float> k = decoded(keys), v = decoded(values);
    std::vector<std::uint8_t>& bytes =
        source.derived.emplace_back(heads * (nope + width) * rank * sizeof(float));
    auto* out = reinterpret_cast<float*>(bytes.data());
    for (std::int64_t h = 0; h < heads; ++h) {
        float* head = out + h * (nope + width) * rank;
        for (std::int64_t i = 0; i < nope; ++i)
            for (std::int64_t c = 0; c < rank; ++c)
                head[i * rank + c] = k[(h * rank + c) * nope + i];
        std::copy_n(v.data() + h * width * rank, width * rank, head + nope * rank);
    }
    TensorInfo merged = keys;
    merged.name.replace(merged.name.find("k_b_proj"), 8, "kv_b_proj");
    merged.dtype = DType::F32;
    merged.blockType = ElementType::F32;
    merged.shape = {heads * (nope + width), rank};
    merged.data = bytes.data();
    merged.byteSize = bytes.size();
    return merged;
}

// Gemma's norms (q and k norms too in Gemma 3) are stored as the multiplier 1 + w; its binder
// adds the one back.
std::vector<std::uint8_t> lessOne(const TensorInfo& t) {
    std::vector<std::uint8_t> out(t.byteSize);
    for (std::size_t i = 0; i < t.byteSize / sizeof(float); ++i) {
        float f;
        std::memcpy(&f, t.data + i * sizeof f, sizeof f);
        f -= 1.0f;
        std::memcpy(out.data() + i * sizeof f, &f, sizeof f);
    }
    return out;
}

}  // namespace

GgufCheckpoint openGgufCheckpoint(const std::filesystem::path& path) {
    auto source = std::make_unique<GgufSource>();
    std::map<std::string, const GgufTensor*> tensors;
    std::map<const GgufTensor*, std::filesystem::path> shardOf;
    for (const std::filesystem::path& shard : shardsOf(path)) {
        const GgufFile& f = *source->files.emplace_back(std::make_unique<GgufFile>(shard));
        for (const auto& [name, t] : f.table().tensors) {
            if (!tensors.emplace(name, &t).second)
                throw Error(shard.string() + ": tensor " + name + " is in two shards");
            shardOf[&t] = shard;
        }
    }
    const GgufFile& file = *source->files.front();
    const auto arch = file.string("general.architecture");
    if (!arch)
        throw Error(file.path().string() + ": GGUF metadata general.architecture is missing");
    Reader r{file, *arch};
    const auto embedding = tensors.find("token_embd.weight");
    if (embedding == tensors.end()) r.fail("no token_embd.weight tensor");
    if (embedding->second->ne.size() != 2)
        r.fail(embedding->second->describe() + " is not a matrix");
    const auto vocab = static_cast<std::int64_t>(embedding->second->ne[1]);
    const bool tied = !tensors.count("output.weight");
    nlohmann::json config =
        *arch == "gemma4" ? gemma4Config(r, vocab, tied, tensors) : configOf(r, vocab, tied);
    constexpr const char* kRopeFactors = "rope_freqs.weight";
    if (const auto factors = tensors.find(kRopeFactors); factors != tensors.end()) {
        if (*arch != "gemma4") readFrequencyFactors(r, *factors->second, config);
        tensors.erase(factors);
    }
    readLongRope(r, tensors, config);
    const std::string modelType = config["model_type"];
    const std::int64_t heads = config["num_attention_heads"];
    const std::int64_t kvHeads = config["num_key_value_heads"];

    // SmolLM3's converter is Llama's: its W_Q and W_K rows are interleaved too.
    const bool interleaved = *arch == "llama" || *arch == "smollm3";
    std::vector<TensorInfo> infos;
    std::map<std::string, TensorInfo> latentHalves;  // DeepSeek's k_b and v_b, by name
    for (const auto& [name, tensor] : tensors) {
        const GgufTensor& g = *tensor;
        TensorInfo t;
        t.name = hfName(*arch, modelType, name);
        if (t.name.empty())
            r.fail("tensor " + g.describe() + " is not one QKV Lab reads for " + *arch);
        const auto element = elementTypeOfGgml(g.ggmlType);
        if (!element)
            r.fail(
                "tensor " + g.describe() + ": ggml type " + ggmlTypeName(g.ggmlType) +
                " is not supported (QKV Lab decodes F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, MXFP4, "
                "Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL and IQ4_XS)");
        t.dtype = *element == ElementType::F32    ? DType::F32
                  : *element == ElementType::F16  ? DType::F16
                  : *element == ElementType::BF16 ? DType::BF16
                                                  : DType::Block;
        t.blockType = *element;
        for (auto d = g.ne.rbegin(); d != g.ne.rend(); ++d)
            t.shape.push_back(static_cast<std::int64_t>(*d));
        t.data = g.data;
        t.byteSize = g.byteSize;
        t.file = shardOf[tensor];
        const bool norm = name.find("norm.weight") != std::string::npos;
        const bool query = name.find(".attn_q.") != std::string::npos;
        const bool key = name.find(".attn_k.") != std::string::npos;
        if (interleaved && (query || key) && t.shape.size() == 2) {
            const std::int64_t n = query ? heads : kvHeads;
            if (n < 1 || t.shape[0] % n != 0 || t.shape[0] / n % 2 != 0)
                r.fail("tensor " + g.describe() + ": its " + std::to_string(t.shape[0]) +
                       " rows are not " + std::to_string(n) + " heads of an even width");
            t.rowOrder = ggmlRotaryRowOrder(t.shape[0], n);
        } else if (interleaved && (query || key)) {
            r.fail("tensor " + g.describe() + ": Llama's q and k biases are not read yet");
        } else if ((*arch == "gemma2" || *arch == "gemma3") && norm && t.dtype == DType::F32) {
            t.data = source->derived.emplace_back(lessOne(t)).data();
        }
        if (t.name.find(".experts.*.") != std::string::npos)
            splitExperts(r, g, std::move(t), infos);
        else if (t.name.find(".k_b_proj.") != std::string::npos ||
                 t.name.find(".v_b_proj.") != std::string::npos)
            latentHalves.emplace(t.name, std::move(t));
        else
            infos.push_back(std::move(t));
    }
    std::size_t merged = 0;
    for (const auto& [name, keys] : latentHalves) {
        if (name.find(".k_b_proj.") == std::string::npos) continue;
        std::string valueName = name;
        valueName.replace(valueName.find("k_b_proj"), 8, "v_b_proj");
        const auto values = latentHalves.find(valueName);
        if (values == latentHalves.end())
            r.fail("the file has " + keys.describe() + " without its value half (attn_v_b)");
        infos.push_back(keyValueUpOf(r, keys, values->second, *source));
        ++merged;
    }
    if (latentHalves.size() != 2 * merged)
        r.fail(
            "the file has a value half of a latent key/value projection (attn_v_b) without "
            "its key half (attn_k_b)");
    std::map<std::string, int> counts;
    for (const auto& [name, g] : tensors) ++counts[ggmlTypeName(g->ggmlType)];
    std::vector<std::pair<int, std::string>> byCount;
    for (const auto& [type, count] : counts) byCount.emplace_back(-count, type);
    std::sort(byCount.begin(), byCount.end());
    GgufCheckpoint out;
    out.formats = "GGUF:";
    for (const auto& [count, type] : byCount)
        out.formats += (&type == &byCount.front().second ? " " : ", ") + type + " " +
                       std::to_string(-count) +
                       (&type == &byCount.front().second ? " tensors" : "");
    out.configJson = config.dump();
    try {
        out.tokenizer = ggufTokenizer(file);
    } catch (const Error& e) {
        out.tokenizerError = path.string() + ": " + e.what();
    }
    out.store = TensorStore::fromTensors(std::move(source), std::move(infos));
    return out;
}

}  // namespace qkv
