// DeepSeek-V2 and -V3 (keys under "model."): Llama's decoder with multi-head latent attention
// (core/model/latent_attention.h: q_a_proj, q_a_layernorm, q_b_proj or q_proj alone;
// kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj; o_proj) and, from layer first_k_dense_replace
// on, a mixture of n_routed_experts SwiGLU experts of moe_intermediate_size plus
// n_shared_experts that every token passes through (one MLP, mlp.shared_experts). V2 routes by
// a softmax (topk_method greedy, or group_limited_greedy within its topk_group best of n_group
// groups) and never renormalises; V3 by sigmoid scores, chosen with e_score_correction_bias
// within the topk_group best groups, renormalised when norm_topk_prob. Both multiply the
// weights by routed_scaling_factor. The softmax scale is (qk_nope + qk_rope)^-1/2; V3 multiplies
// it by YaRN's mscale² (from rope_scaling's mscale_all_dim), as Hugging Face does. Kimi K2
// (model_type kimi_k2) is V3's network under another name. The Hub's V3, R1 and K2 files keep
// their linear weights in FP8 (quant_method "fp8": TensorBinder decodes them).
#include <cmath>
#include <cstdint>

#include "core/model/families/binding.h"
#include "core/model/gguf_config.h"

namespace qkv::families {
namespace {

// A latent rank that does not compress: the shape is then not what the key describes.
int latentRank(const ConfigReader& r, const char* key, const Architecture& c) {
    const int rank = r.width(key);
    if (rank > c.dModel)
        r.fail("\"" + std::string(key) + "\" (" + std::to_string(rank) + ") exceeds hidden_size (" +
               std::to_string(c.dModel) + "): a latent is narrower than the model");
    return rank;
}

void readLatentAttention(const ConfigReader& r, Architecture& c, bool v3) {
    LatentAttention& l = c.latent;
    l.queryRank = r.has("q_lora_rank") ? latentRank(r, "q_lora_rank", c) : 0;
    l.keyValueRank = latentRank(r, "kv_lora_rank", c);
    l.ropeDim = r.width("qk_rope_head_dim");
    l.nopeDim = r.width("qk_nope_head_dim");
    if (l.ropeDim % 2 != 0) r.fail("\"qk_rope_head_dim\" must be even (rotary turns pairs)");
    l.interleavedRope = v3 ? r.boolOr("rope_interleave", true) : true;
    c.valueDim = r.width("v_head_dim");
    c.headDim = l.ropeDim + l.nopeDim;  // config.json's head_dim is the rotary part's
    if (std::int64_t{c.heads} * (l.nopeDim + c.valueDim) > ConfigReader::kMaxWidth)
        r.fail(std::to_string(c.heads) + " heads of keys and values " +
               std::to_string(l.nopeDim + c.valueDim) + " wide exceed the " +
               std::to_string(ConfigReader::kMaxWidth) + " attention width QKV Lab supports");
    if (c.kvHeads != c.heads)
        r.fail("\"num_key_value_heads\" (" + std::to_string(c.kvHeads) +
               ") must equal the heads: latent attention gives every head its own key");
    c.rotary = readRotary(r, l.ropeDim, c.contextLength);
    c.contextLength = c.rotary.longestInput();
    double scale = 1.0 / std::sqrt(static_cast<double>(c.headDim));
    // transformers 5 writes YaRN's keys into rope_parameters, 4.x into rope_scaling.
    const std::optional<ConfigReader> scaling =
        r.has("rope_parameters") ? r.object("rope_parameters") : r.object("rope_scaling");
    if (v3 && scaling && scaling->numberOr("mscale_all_dim", 0.0f) > 0.0f) {
        const double factor = scaling->number("factor");
        const double mscale =
            factor <= 1.0 ? 1.0 : 0.1 * scaling->number("mscale_all_dim") * std::log(factor) + 1.0;
        scale *= mscale * mscale;
    }
    c.attentionScale = static_cast<float>(scale);
}

}  // namespace

void readLatentDecoder(const ConfigReader& r, Architecture& c, bool v3) {
    readStandardShape(r, c, 2048);
    c.norm = NormKind::RmsNorm;
    c.normEps = r.numberOr("rms_norm_eps", 1e-6f);
    c.positions = Positions::Rotary;
    c.activation = Activation::SwiGlu;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", false);
    const std::string act = r.stringOr("hidden_act", "silu");
    if (act != "silu") r.fail("hidden_act \"" + act + "\" is not supported (only \"silu\")");
    if (r.boolOr("mlp_bias", false)) r.fail("\"mlp_bias\" is not supported");
    readLatentAttention(r, c, v3);
}

namespace {

void bindLatentAttention(TensorBinder& b, const Architecture& c, const std::string& p, bool bias,
                         LayerWeights& layer) {
    const LatentAttention& l = c.latent;
    const int d = c.dModel, queryWidth = c.heads * c.headDim;
    LatentAttentionWeights& w = layer.latent;
    if (l.queryRank > 0) {
        w.queryDown = linearLayer(b, p + "q_a_proj", d, l.queryRank, bias);
        w.queryNorm = rmsNorm(b, p + "q_a_layernorm", l.queryRank);
        w.queryUp = linearLayer(b, p + "q_b_proj", l.queryRank, queryWidth, false);
    } else {
        w.queryUp = linearLayer(b, p + "q_proj", d, queryWidth, false);
    }
    // [latent | rotary key] in one projection: two column views.
    const LinearWeights down =
        linearLayer(b, p + "kv_a_proj_with_mqa", d, l.keyValueRank + l.ropeDim, bias);
    auto part = [&](int first, int count) -> LinearWeights {
        return {down.weight.columns(first, count),
                down.bias.empty() ? VectorView{} : down.bias.slice(first, count)};
    };
    w.latent = part(0, l.keyValueRank);
    w.rotaryKey = part(l.keyValueRank, l.ropeDim);
    w.latentNorm = rmsNorm(b, p + "kv_a_layernorm", l.keyValueRank);
    w.keyValueUp = linearLayer(b, p + "kv_b_proj", l.keyValueRank,
                               c.heads * (l.nopeDim + c.valueWidth()), false);
    layer.output = linearLayer(b, p + "o_proj", c.heads * c.valueWidth(), d, bias);
}

// DeepSeek sparse attention's indexer (Architecture::keyIndexer) under `p` ("...self_attn.").
void bindKeyIndexer(TensorBinder& b, const Architecture& c, const std::string& p,
                    LatentAttentionWeights& w) {
    const KeyIndexer& indexer = c.keyIndexer;
    const std::string i = p + "indexer.";
    w.indexQuery =
        linearLayer(b, i + "wq_b", c.latent.queryRank, indexer.heads * indexer.headDim, false);
    w.indexKey = linearLayer(b, i + "wk", c.dModel, indexer.headDim, false);
    w.indexKeyNorm = layerNorm(b, i + "k_norm", indexer.headDim);
    w.indexHeadWeights = linearLayer(b, i + "weights_proj", c.dModel, indexer.heads, false);
}

}  // namespace

ModelWeights bindLatentDecoder(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    const bool bias = b.has("layers.0.self_attn.kv_a_proj_with_mqa.bias");
    return bindDecoderStack(b, c, [&](const std::string& p, int l, LayerWeights& layer) {
        layer.attentionNorm = rmsNorm(b, p + "input_layernorm", d);
        bindLatentAttention(b, c, p + "self_attn.", bias, layer);
        if (c.keyIndexer.present() && !c.kindOf(l).reusesKeys)
            bindKeyIndexer(b, c, p + "self_attn.", layer.latent);
        layer.mlpNorm = rmsNorm(b, p + "post_attention_layernorm", d);
        if (!c.kindOf(l).experts) {
            bindGatedMlp(b, c, p + "mlp.", layer);
            return;
        }
        bindRoutedExperts(b, c, p + "mlp.", layer);
    });
}

namespace {

void read(const ConfigReader& r, Architecture& c) {
    const bool v3 = c.modelType != "deepseek_v2";  // deepseek_v3 or kimi_k2
    readLatentDecoder(r, c, v3);
    readRoutedExperts(r, c, v3);
}

// DeepSeek-V2 and -V3 ("deepseek2"). llama.cpp's converter frames latent attention as one key
// head shared by all (head_count_kv 1, key_length kv_lora_rank + rotary) and keeps the heads'
// widths as key_length_mla and value_length_mla; files converted before it split kv_b into k_b
// and v_b have neither, their key_length and value_length are the heads'. The router's gating
// function tells V3 (sigmoid, with exp_probs_b) from V2 (softmax; absent in V2's older files).
nlohmann::json ggufConfig(const GgufModelReader& r, std::int64_t vocab, bool tied, GgufTensors&) {
    nlohmann::json c =
        ggufDecoderConfig(r, vocab, tied, "deepseek_v2", {.yarnLogMultiplierIsMscale = true});
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
    ggufRoutedExperts(r, c, v3);
    return c;
}

}  // namespace

void ggufRoutedExperts(const GgufModelReader& r, nlohmann::json& c, bool v3) {
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

void readRoutedExperts(const ConfigReader& r, Architecture& c, bool v3) {
    if (!r.has("n_routed_experts")) return;
    const std::string scoring = r.stringOr("scoring_func", v3 ? "sigmoid" : "softmax");
    if (scoring != (v3 ? "sigmoid" : "softmax"))
        r.fail("\"scoring_func\" \"" + scoring + "\" is not supported for " + c.modelType);
    if (r.positiveIntOr("moe_layer_freq", 1) != 1)
        r.fail("\"moe_layer_freq\" other than 1 is not supported");
    // V2's gate ignores norm_topk_prob (Hugging Face never renormalises its weights).
    c.moe = readExperts(r, "n_routed_experts", r.width("moe_intermediate_size"),
                        v3 && r.boolOr("norm_topk_prob", true));
    c.moe.router = v3 ? Router::SigmoidTopK : Router::SoftmaxTopK;
    c.moe.scale = r.numberOr("routed_scaling_factor", 1.0f);
    const std::string method = r.stringOr("topk_method", v3 ? "noaux_tc" : "greedy");
    if (v3 || method == "group_limited_greedy") {
        c.moe.groups = r.positiveInt("n_group");
        c.moe.groupsKept = r.positiveInt("topk_group");
    } else if (method != "greedy") {
        r.fail("\"topk_method\" \"" + method + "\" is not supported");
    }
    const int perGroup = c.moe.experts / c.moe.groups;
    if (c.moe.experts % c.moe.groups != 0 || c.moe.groupsKept > c.moe.groups ||
        std::int64_t{c.moe.groupsKept} * perGroup < c.moe.perToken || (v3 && perGroup < 2))
        r.fail("\"n_group\" " + std::to_string(c.moe.groups) + " and \"topk_group\" " +
               std::to_string(c.moe.groupsKept) + " do not fit " + std::to_string(c.moe.experts) +
               " experts routed " + std::to_string(c.moe.perToken) + " per token");
    const std::int64_t shared =
        std::int64_t{r.nonNegativeIntOr("n_shared_experts", 0)} * c.moe.width;
    if (shared > ConfigReader::kMaxWidth)
        r.fail("\"n_shared_experts\" of \"moe_intermediate_size\" make a shared MLP wider than " +
               std::to_string(ConfigReader::kMaxWidth));
    c.moe.sharedWidth = static_cast<int>(shared);
    const int dense = r.nonNegativeIntOr("first_k_dense_replace", 0);
    c.layerKinds.assign(c.layers, LayerKind{});
    for (int l = 0; l < c.layers; ++l) c.layerKinds[l].experts = l >= dense;
}

void bindRoutedExperts(TensorBinder& b, const Architecture& c, const std::string& p,
                       LayerWeights& layer) {
    const int d = c.dModel;
    bindExperts(b, c, p, {"gate_proj", "up_proj", "down_proj"}, layer);
    if (c.moe.router == Router::SigmoidTopK)
        layer.routerChoiceBias = b.vector(p + "gate.e_score_correction_bias", c.moe.experts);
    if (c.moe.sharedWidth > 0) {
        const std::string shared = p + "shared_experts.";
        layer.mlpGate = linearLayer(b, shared + "gate_proj", d, c.moe.sharedWidth, false);
        layer.mlpIn = linearLayer(b, shared + "up_proj", d, c.moe.sharedWidth, false);
        layer.mlpOut = linearLayer(b, shared + "down_proj", c.moe.sharedWidth, d, false);
    }
}

ModelFamily deepseek() {
    ModelFamily f{"deepseek",        {"deepseek_v2", "deepseek_v3", "kimi_k2"},
                  {"model.", ""},    read,
                  bindLatentDecoder, {"fp8"}};
    f.gguf = {.architectures = {"deepseek2"}, .config = ggufConfig};
    f.transformers = {.query = "kv_b_proj", .key = "", .value = ""};  // learned only (no tying)
    return f;
}

void readLatentMoeDecoder(const ConfigReader& r, Architecture& c) {
    readLatentDecoder(r, c, true);
    readRoutedExperts(r, c, true);
    if (!c.moe.experts) r.fail("\"n_routed_experts\" is missing");
    if (!r.has("mlp_layer_types")) return;
    const std::vector<std::string> kinds = r.strings("mlp_layer_types");
    if (static_cast<int>(kinds.size()) != c.layers)
        r.fail("\"mlp_layer_types\" names " + std::to_string(kinds.size()) + " layers of " +
               std::to_string(c.layers));
    for (int l = 0; l < c.layers; ++l) {
        if (kinds[l] != "dense" && kinds[l] != "sparse")
            r.fail("\"mlp_layer_types\" \"" + kinds[l] + "\" is neither \"dense\" nor \"sparse\"");
        c.layerKinds[l].experts = kinds[l] == "sparse";
    }
}

}  // namespace qkv::families
