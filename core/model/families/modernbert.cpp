// ModernBERT (keys under "model.", the masked-LM head's "head." and "decoder." without): a
// bidirectional encoder with
//   - token embeddings LayerNorm-ed, no position table: rotary positions, global layers with
//     global_rope_theta and local ones with local_rope_theta;
//   - every global_attn_every_n_layers-th layer global (from layer 0), the others local: a key is
//     seen within local_attention / 2 of the query on either side;
//   - pre-LayerNorm blocks without biases (norm_bias false), no attention norm in layer 0;
//   - fused Wqkv = [q | k | v] rows, GeGLU MLP Wo(act(a) · b) with [a | b] = Wi x;
//   - head: dense -> classifier_activation -> LayerNorm -> decoder (tied) + decoder bias.
#include <algorithm>
#include <initializer_list>
#include <map>

#include "core/model/families/binding.h"
#include "core/model/gguf_config.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readStandardShape(r, c, 8192);
    c.kvHeads = c.heads;
    c.headDim = headDimFromWidth(c, r.where());
    c.causal = false;
    c.norm = NormKind::LayerNorm;
    c.normEps = r.numberOr("norm_eps", 1e-5f);
    const Activation act = activationNamed(r, "hidden_activation", "gelu");
    if (act != Activation::GeluExact && act != Activation::GeluTanh)
        r.fail("\"hidden_activation\" must be a GELU for ModernBERT's gated MLP");
    c.activation = act == Activation::GeluExact ? Activation::GeluGlu : Activation::GeluTanhGlu;
    c.headActivation = activationNamed(r, "classifier_activation", "gelu");
    c.positions = Positions::Rotary;
    c.rotary = readRotary(r, c.headDim, c.contextLength, {160000.0, "global_rope_theta"});
    c.localRotary = readRotary(r, c.headDim, c.contextLength, {10000.0, "local_rope_theta", false});
    c.slidingWindow = r.positiveIntOr("local_attention", 128) / 2;  // keys within it either side
    const int every = r.positiveIntOr("global_attn_every_n_layers", 3);
    c.layerKinds.assign(c.layers, LayerKind{});
    for (int l = 0; l < c.layers; ++l) c.layerKinds[l].local = l % every != 0;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
    if (r.boolOr("attention_bias", false) || r.boolOr("mlp_bias", false))
        r.fail("attention_bias / mlp_bias are not supported for ModernBERT");
}

// A LayerNorm whose bias the checkpoint may leave out (norm_bias false).
NormWeights optionalBiasNorm(TensorBinder& b, const std::string& module, int size) {
    return {b.normWeight(module, size),
            b.has(module + ".bias") ? b.normBias(module, size) : VectorView{}};
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("embeddings.tok_embeddings.weight", c.vocabSize, d);
    w.embeddingNorm = optionalBiasNorm(b, "embeddings.norm", d);
    w.layers = bindLayers(c, "layers.", [&](const std::string& p, LayerWeights& layer) {
        if (b.has(p + "attn_norm.weight"))  // layer 0 has none (Identity)
            layer.attentionNorm = optionalBiasNorm(b, p + "attn_norm", d);
        const MatrixView qkv = b.matrix(p + "attn.Wqkv.weight", 3 * d, d).transposed();
        layer.query = {qkv.columns(0, d), {}};
        layer.key = {qkv.columns(d, d), {}};
        layer.value = {qkv.columns(2 * d, d), {}};
        layer.output = linearLayer(b, p + "attn.Wo", d, d, false);
        layer.mlpNorm = optionalBiasNorm(b, p + "mlp_norm", d);
        const MatrixView wi = b.matrix(p + "mlp.Wi.weight", 2 * c.dFF, d).transposed();
        layer.mlpGate = {wi.columns(0, c.dFF), {}};  // the half the activation applies to
        layer.mlpIn = {wi.columns(c.dFF, c.dFF), {}};
        layer.mlpOut = linearLayer(b, p + "mlp.Wo", c.dFF, d, false);
    });
    w.finalNorm = optionalBiasNorm(b, "final_norm", d);
    if (b.has("decoder.bias")) {  // a masked-LM checkpoint; a bare encoder has no logits
        w.headTransform = linearLayer(b, "head.dense", d, d, b.has("head.dense.bias"));
        w.headTransformNorm = optionalBiasNorm(b, "head.norm", d);
        w.lmHead.weight = outputProjection(b, c, "decoder.weight", w.tokenEmbedding);
        w.lmHead.bias = b.vector("decoder.bias", c.vocabSize);
    }
    return w;
}

// ModernBERT ("modern-bert", which llama.cpp converts as an embedding model): LayerNorm's
// epsilon, the local layers' window (attention.sliding_window, the config's local_attention), the
// period of global layers from layer 0 (sliding_window_pattern, global_attn_every_n_layers), and
// the global and local rotary bases (rope.freq_base, rope.freq_base_swa). What the file leaves
// out takes llama.cpp's defaults: base 10000, the global base for local layers, a period of 3,
// and every layer global where there is no window. Biases, which the family refuses, are told
// by their tensors.
nlohmann::json ggufConfig(const GgufModelReader& r, std::int64_t vocab, bool,
                          GgufTensors& tensors) {
    const std::int64_t heads = r.required("attention.head_count");
    if (const auto kv = r.integer("attention.head_count_kv"); kv && *kv != heads)
        r.fail("GGUF metadata " + r.arch +
               ".attention.head_count_kv: ModernBERT has as many key/value heads as query heads");
    if (ggufArrayOrNull(r, "attention.sliding_window_pattern"))
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

// ModernBERT ("modern-bert") keeps its own module names. The converter writes a checkpoint's
// head.dense and head.norm (the masked-LM or classifier head's transform) as cls and cls.norm, a
// classifier's output as cls.output, and no masked-LM decoder bias: they are named as Hugging
// Face names them, and the family leaves them unread (the model opens without logits).
std::string ggufName(const std::string& name) {
    static const std::map<std::string, std::string> kTop = {
        {"token_embd", "model.embeddings.tok_embeddings"},
        {"token_embd_norm", "model.embeddings.norm"},
        {"output_norm", "model.final_norm"},
        {"cls", "head.dense"},
        {"cls.norm", "head.norm"},
        {"cls.output", "classifier"}};
    static const std::map<std::string, std::string> kLayer = {
        {"attn_norm", "attn_norm"}, {"attn_qkv", "attn.Wqkv"}, {"attn_output", "attn.Wo"},
        {"ffn_norm", "mlp_norm"},   {"ffn_up", "mlp.Wi"},      {"ffn_down", "mlp.Wo"}};
    return ggufModuleName(name, kTop, kLayer);
}

}  // namespace

ModelFamily modernbert() {
    ModelFamily f{"modernbert", {"modernbert"}, {"model.", ""}, read, bind};
    f.gguf = {.architectures = {"modern-bert"}, .config = ggufConfig, .tensorName = ggufName};
    f.transformers = {.modelClass = HfModelClass::Encoder,
                      .layout = HfProjectionLayout::FusedRowBlocks,
                      .query = "Wqkv",
                      .key = "",
                      .value = ""};
    return f;
}

}  // namespace qkv::families
