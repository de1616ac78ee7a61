// LFM2 (lfm2; Liquid's LFM2, keys under "model."): pre-RMSNorm blocks x + mixer(operator_norm x),
// then x + w2(silu(w1 h) · w3 h) with h = ffn_norm(x); the last layer's output is normed by
// embedding_norm; lm_head tied. Each layer's mixer, from layer_types ("conv", "full_attention")
// or full_attn_idxs:
//   - a short convolution (Mixer::ShortConv): in_proj's rows [B | C | x] (bound as the key,
//     query and value projections), y = C · conv(B · x) with conv.conv's conv_L_cache taps, no
//     activation, then out_proj; conv_bias puts a bias on in_proj, the conv and out_proj
//   - grouped-query attention with RMSNorm per head on q and k (q_layernorm, k_layernorm) before
//     rotary, scale head_dim^-1/2, output out_proj.
// With block_auto_adjust_ff_dim the MLP is int(2/3 · intermediate_size), times
// block_ffn_dim_multiplier, rounded up to block_multiple_of.
#include <cmath>
#include <map>

#include "core/model/families/binding.h"
#include "core/model/gguf_config.h"

namespace qkv::families {
namespace {

int feedForwardWidth(const ConfigReader& r) {
    const int stated = r.width("intermediate_size");
    if (!r.boolOr("block_auto_adjust_ff_dim", false)) return stated;
    double width = 2 * stated / 3;
    if (r.has("block_ffn_dim_multiplier")) {
        const double multiple = r.positiveIntOr("block_multiple_of", 256);
        width = std::floor(r.number("block_ffn_dim_multiplier") * width);
        width = multiple * std::ceil(width / multiple);
    }
    // A multiplier of 0 (or a tiny intermediate_size) would leave the MLP no width at all.
    if (width < 1 || width > ConfigReader::kMaxWidth)
        r.fail("the feed-forward width from intermediate_size " + std::to_string(stated) +
               " adjusted by block_ffn_dim_multiplier and block_multiple_of is " +
               std::to_string(static_cast<long long>(width)) + ", outside 1.." +
               std::to_string(ConfigReader::kMaxWidth));
    return static_cast<int>(width);
}

// Whether each layer is a convolution: layer_types, or every layer not in full_attn_idxs.
std::vector<bool> readConvLayers(const ConfigReader& r, int layers) {
    std::vector<bool> conv(layers, true);
    if (r.has("layer_types")) {
        const std::vector<std::string> types = r.strings("layer_types");
        if (static_cast<int>(types.size()) != layers)
            r.fail("\"layer_types\" lists " + std::to_string(types.size()) +
                   " layers; the model has " + std::to_string(layers));
        for (int l = 0; l < layers; ++l) {
            if (types[l] != "conv" && types[l] != "full_attention")
                r.fail("\"layer_types\" entry \"" + types[l] +
                       "\" is not supported (conv or full_attention)");
            conv[l] = types[l] == "conv";
        }
        return conv;
    }
    for (int index : r.integers("full_attn_idxs")) {
        if (index < 0 || index >= layers)
            r.fail("\"full_attn_idxs\" holds layer " + std::to_string(index) + " of " +
                   std::to_string(layers));
        conv[index] = false;
    }
    return conv;
}

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.normEps = r.numberOr("norm_eps", 1e-5f);
    c.dFF = feedForwardWidth(r);
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
    c.qkNorm = QkNorm::PerHead;
    c.shortConv.convKernel = r.positiveInt("conv_L_cache", 64);
    const std::vector<bool> conv = readConvLayers(r, c.layers);
    c.layerKinds.assign(c.layers, LayerKind{});
    for (int l = 0; l < c.layers; ++l)
        if (conv[l]) c.layerKinds[l].mixer = Mixer::ShortConv;
}

void bindShortConv(TensorBinder& b, const Architecture& c, const std::string& p,
                   LayerWeights& layer) {
    const int d = c.dModel, kernel = c.shortConv.convKernel;
    const bool bias = b.has(p + "in_proj.bias");
    const LinearWeights in = linearLayer(b, p + "in_proj", d, 3 * d, bias);
    layer.key = columnsOf(in, 0, d);
    layer.query = columnsOf(in, d, d);
    layer.value = columnsOf(in, 2 * d, d);
    layer.recurrent.productTaps = b.flatVector(p + "conv.weight", {d, 1, kernel});
    if (b.has(p + "conv.bias")) layer.recurrent.productConvBias = b.vector(p + "conv.bias", d);
    layer.output = linearLayer(b, p + "out_proj", d, d, b.has(p + "out_proj.bias"));
}

void bindAttention(TensorBinder& b, const Architecture& c, const std::string& p,
                   LayerWeights& layer) {
    const int d = c.dModel, qWidth = c.heads * c.headDim, kvWidth = c.kvHeads * c.headDim;
    layer.query = linearLayer(b, p + "q_proj", d, qWidth, false);
    layer.key = linearLayer(b, p + "k_proj", d, kvWidth, false);
    layer.value = linearLayer(b, p + "v_proj", d, kvWidth, false);
    layer.output = linearLayer(b, p + "out_proj", qWidth, d, false);
    layer.queryNorm = rmsNorm(b, p + "q_layernorm", c.headDim);
    layer.keyNorm = rmsNorm(b, p + "k_layernorm", c.headDim);
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("embed_tokens.weight", c.vocabSize, d);
    w.layers =
        bindLayersByIndex(c, "layers.", [&](const std::string& p, int l, LayerWeights& layer) {
            layer.attentionNorm = rmsNorm(b, p + "operator_norm", d);
            if (c.mixerOf(l) == Mixer::ShortConv)
                bindShortConv(b, c, p + "conv.", layer);
            else
                bindAttention(b, c, p + "self_attn.", layer);
            layer.mlpNorm = rmsNorm(b, p + "ffn_norm", d);
            layer.mlpGate = linearLayer(b, p + "feed_forward.w1", d, c.dFF, false);
            layer.mlpIn = linearLayer(b, p + "feed_forward.w3", d, c.dFF, false);
            layer.mlpOut = linearLayer(b, p + "feed_forward.w2", c.dFF, d, false);
        });
    w.finalNorm = rmsNorm(b, "embedding_norm", d);
    w.lmHead.weight = outputProjection(b, c, "lm_head.weight", w.tokenEmbedding);
    return w;
}

// llama.cpp's lfm2 files: attention.head_count_kv per layer, 0 for a short convolution; the
// MLP width already adjusted; the convolution's taps as [channels, taps].
nlohmann::json ggufConfig(const GgufModelReader& r, std::int64_t vocab, bool tied, GgufTensors&) {
    nlohmann::json types = nlohmann::json::array();
    std::int64_t most = 0;
    for (std::int64_t heads : ggufKeyValueHeadsPerLayer(r, "a short convolution")) {
        types.push_back(heads == 0 ? "conv" : "full_attention");
        most = std::max(most, heads);
    }
    return {{"model_type", "lfm2"},
            {"hidden_size", r.required("embedding_length")},
            {"num_hidden_layers", r.required("block_count")},
            {"intermediate_size", r.required("feed_forward_length")},
            {"block_auto_adjust_ff_dim", false},
            {"num_attention_heads", r.required("attention.head_count")},
            {"num_key_value_heads", most > 0 ? most : r.required("attention.head_count")},
            {"layer_types", types},
            {"conv_L_cache", r.required("shortconv.l_cache")},
            {"vocab_size", vocab},
            {"max_position_embeddings", r.integer("context_length").value_or(128000)},
            {"rope_theta", r.number("rope.freq_base").value_or(1000000.0)},
            {"norm_eps", r.number("attention.layer_norm_rms_epsilon").value_or(1e-5)},
            {"tie_word_embeddings", tied}};
}

// The converter's names: the final norm is token_embd_norm (applied after the last layer),
// the convolution's modules shortconv.*.
std::string ggufName(const std::string& name) {
    static const std::map<std::string, std::string> kTop = {
        {"token_embd", "model.embed_tokens"},
        {"token_embd_norm", "model.embedding_norm"},
        {"output", "lm_head"}};
    static const std::map<std::string, std::string> kLayer = {
        {"attn_norm", "operator_norm"},           {"ffn_norm", "ffn_norm"},
        {"ffn_gate", "feed_forward.w1"},          {"ffn_up", "feed_forward.w3"},
        {"ffn_down", "feed_forward.w2"},          {"attn_q", "self_attn.q_proj"},
        {"attn_k", "self_attn.k_proj"},           {"attn_v", "self_attn.v_proj"},
        {"attn_output", "self_attn.out_proj"},    {"attn_q_norm", "self_attn.q_layernorm"},
        {"attn_k_norm", "self_attn.k_layernorm"}, {"shortconv.in_proj", "conv.in_proj"},
        {"shortconv.conv", "conv.conv"},          {"shortconv.out_proj", "conv.out_proj"}};
    return ggufModuleName(name, kTop, kLayer);
}

}  // namespace

// C plays W_Q, B plays W_K and x plays W_V; the convolution mixes each channel alone.
ModelFamily lfm2() {
    ModelFamily f{"lfm2", {"lfm2"}, {"model.", ""}, read, bind};
    f.gguf = {.architectures = {"lfm2"}, .config = ggufConfig, .tensorName = ggufName};
    return f;
}

}  // namespace qkv::families
