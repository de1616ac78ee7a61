#include "core/model/families/binding.h"

namespace qkv::families {

LinearWeights linearLayer(TensorBinder& b, const std::string& module, int in, int out, bool bias) {
    return {b.matrix(module + ".weight", out, in).transposed(),
            bias ? b.vector(module + ".bias", out) : VectorView{}};
}

NormWeights layerNorm(TensorBinder& b, const std::string& module, int size) {
    return {b.normWeight(module, size), b.normBias(module, size)};
}

NormWeights rmsNorm(TensorBinder& b, const std::string& module, int size) {
    return {b.normWeight(module, size), {}};
}

MatrixView outputProjection(TensorBinder& b, const ModelConfig& c, const std::string& name,
                            const MatrixView& tokenEmbedding) {
    if (c.tiedEmbeddings) return tokenEmbedding.transposed();   // a stored copy would be equal
    return b.matrix(name, c.vocabSize, c.dModel).transposed();  // throws naming it when missing
}

Activation activationNamed(const ConfigReader& r, const char* key, const std::string& fallback) {
    const std::string name = r.stringOr(key, fallback);
    if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast")
        return Activation::GeluTanh;
    if (name == "gelu") return Activation::GeluExact;
    if (name == "relu") return Activation::Relu;
    r.fail("unsupported activation function \"" + name + "\" in \"" + key + "\"");
}

}  // namespace qkv::families

namespace qkv::families {

void readStandardShape(const ConfigReader& r, ModelConfig& c, int defaultContext) {
    c.layers = r.positiveInt("num_hidden_layers");
    c.heads = r.positiveInt("num_attention_heads");
    c.kvHeads = r.positiveIntOr("num_key_value_heads", c.heads);
    c.dModel = r.width("hidden_size");
    c.dFF = r.width("intermediate_size");
    c.vocabSize = r.positiveInt("vocab_size");
    c.contextLength = r.positiveIntOr("max_position_embeddings", defaultContext);
}

void readRotaryShape(const ConfigReader& r, ModelConfig& c, int defaultContext,
                     int defaultHeadDim) {
    readStandardShape(r, c, defaultContext);
    c.headDim = r.widthOr("head_dim", defaultHeadDim);  // 0: d_model / heads
    c.normEps = r.numberOr("rms_norm_eps", 1e-6f);
    c.ropeTheta = r.numberOr("rope_theta", 10000.0f);
    c.norm = NormKind::RmsNorm;
    c.positions = Positions::Rotary;
    r.requireNull("rope_scaling", "rope_scaling (scaled rotary positions)");
}

void readRotaryDecoder(const ConfigReader& r, ModelConfig& c) {
    readRotaryShape(r, c, 2048, 0);
    c.activation = Activation::SwiGlu;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", false);
    const std::string act = r.stringOr("hidden_act", "silu");
    if (act != "silu") r.fail("hidden_act \"" + act + "\" is not supported (only \"silu\")");
    if (r.positiveIntOr("pretraining_tp", 1) != 1)
        r.fail("pretraining_tp other than 1 is not supported");
}

void bindLlamaAttention(TensorBinder& b, const ModelConfig& c, const std::string& p, bool qkvBias,
                        LayerWeights& layer) {
    const int d = c.dModel;
    const int qWidth = c.heads * c.headDim;
    const int kvWidth = c.kvHeads * c.headDim;
    layer.query = linearLayer(b, p + "q_proj", d, qWidth, qkvBias);
    layer.key = linearLayer(b, p + "k_proj", d, kvWidth, qkvBias);
    layer.value = linearLayer(b, p + "v_proj", d, kvWidth, qkvBias);
    layer.output = linearLayer(b, p + "o_proj", qWidth, d, false);
}

void bindGatedMlp(TensorBinder& b, const ModelConfig& c, const std::string& p,
                  LayerWeights& layer) {
    layer.mlpGate = linearLayer(b, p + "gate_proj", c.dModel, c.dFF, false);
    layer.mlpIn = linearLayer(b, p + "up_proj", c.dModel, c.dFF, false);
    layer.mlpOut = linearLayer(b, p + "down_proj", c.dFF, c.dModel, false);
}

}  // namespace qkv::families
