#include "core/model/families/binding.h"

#include <regex>

namespace qkv::families {

LinearWeights linearLayer(TensorBinder& b, const std::string& module, int in, int out, bool bias) {
    // The orders before the matrix: it is read only once they were asked for.
    std::vector<int> order = b.rowOrder(module + ".weight");
    std::vector<int> inputOrder = b.columnOrder(module + ".weight");
    LinearWeights w{b.matrix(module + ".weight", out, in).transposed(),
                    bias ? b.vector(module + ".bias", out) : VectorView{}, std::move(order)};
    w.inputOrder = std::move(inputOrder);
    return w;
}

NormWeights layerNorm(TensorBinder& b, const std::string& module, int size) {
    return {b.normWeight(module, size), b.normBias(module, size)};
}

NormWeights rmsNorm(TensorBinder& b, const std::string& module, int size) {
    return {b.normWeight(module, size), {}};
}

MatrixView outputProjection(TensorBinder& b, const Architecture& c, const std::string& name,
                            const MatrixView& tokenEmbedding) {
    if (c.tiedEmbeddings) return tokenEmbedding.transposed();  // a stored copy would be equal
    return b.matrix(name, c.vocabSize, c.tokenWidth()).transposed();  // throws naming it if missing
}

void bindMaskedLmHead(TensorBinder& b, const Architecture& c, ModelWeights& w,
                      const std::string& dense, const std::string& norm, const std::string& bias,
                      const std::string& decoder) {
    if (!b.has(bias)) return;
    w.headTransform = linearLayer(b, dense, c.dModel, c.dModel, true);
    w.headTransformNorm = layerNorm(b, norm, c.dModel);
    w.lmHead.bias = b.vector(bias, c.vocabSize);
    w.lmHead.weight = outputProjection(b, c, decoder, w.tokenEmbedding);
}

Activation activationNamed(const ConfigReader& r, const char* key, const std::string& fallback) {
    const std::string name = r.stringOr(key, fallback);
    if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast")
        return Activation::GeluTanh;
    if (name == "gelu") return Activation::GeluExact;
    if (name == "relu") return Activation::Relu;
    if (name == "relu2") return Activation::ReluSquared;
    if (name == "silu" || name == "swish") return Activation::Silu;
    r.fail("unsupported activation function \"" + name + "\" in \"" + key + "\"");
}

}  // namespace qkv::families

namespace qkv::families {

void readStandardShape(const ConfigReader& r, Architecture& c, int defaultContext,
                       const ShapeKeys& keys) {
    c.layers = r.positiveInt(keys.layers);
    c.heads = r.positiveInt(keys.heads);
    c.kvHeads = r.positiveIntOr("num_key_value_heads", c.heads);
    c.dModel = r.width(keys.dModel);
    c.dFF = r.width(keys.dFF);
    c.vocabSize = r.positiveInt("vocab_size");
    c.contextLength = r.positiveIntOr(keys.context, defaultContext);
}

void readRotaryShape(const ConfigReader& r, Architecture& c, int defaultContext, int defaultHeadDim,
                     const ShapeKeys& keys) {
    readStandardShape(r, c, defaultContext, keys);
    c.headDim = r.widthOr("head_dim", defaultHeadDim);  // 0: d_model / heads
    if (c.headDim == 0) c.headDim = headDimFromWidth(c, r.where());
    c.normEps = r.numberOr("rms_norm_eps", 1e-6f);
    c.norm = NormKind::RmsNorm;
    c.positions = Positions::Rotary;
    c.rotary = readRotary(r, c.headDim, c.contextLength);
    c.contextLength = c.rotary.longestInput();
}

void readLayerTypes(const ConfigReader& r, Architecture& c) {
    if (!r.has("layer_types")) return;
    const std::vector<std::string> types = r.strings("layer_types");
    if (static_cast<int>(types.size()) != c.layers)
        r.fail("\"layer_types\" lists " + std::to_string(types.size()) + " layers; the model has " +
               std::to_string(c.layers));
    if (static_cast<int>(c.layerKinds.size()) != c.layers)
        c.layerKinds.assign(c.layers, LayerKind{});
    for (int l = 0; l < c.layers; ++l) {
        if (types[l] != "full_attention" && types[l] != "sliding_attention")
            r.fail("\"layer_types\" entry \"" + types[l] +
                   "\" is not supported (only full_attention and sliding_attention)");
        c.layerKinds[l].local = types[l] == "sliding_attention";
    }
}

void readWrappedText(const ConfigReader& r, Architecture& c,
                     void (*readText)(const ConfigReader&, Architecture&), const std::string& model,
                     const std::string& inputs) {
    const std::optional<ConfigReader> text = r.object("text_config");
    if (!text) r.fail("missing \"text_config\" (the " + model + " text model's description)");
    readText(*text, c);
    c.notShown = inputs + " are not shown: QKV Lab reads " + model + "'s text model";
}

void readRotaryDecoder(const ConfigReader& r, Architecture& c, const ShapeKeys& keys) {
    readRotaryShape(r, c, 2048, 0, keys);
    c.activation = Activation::SwiGlu;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", false);
    const std::string act = r.stringOr("hidden_act", "silu");
    if (act != "silu") r.fail("hidden_act \"" + act + "\" is not supported (only \"silu\")");
    // pretraining_tp (SmolLM3-3B has 2) split the MLP only in training code; transformers'
    // forward no longer reads it, and neither does this one.
}

std::string ggufModuleName(const std::string& name, const std::map<std::string, std::string>& top,
                           const std::map<std::string, std::string>& layer) {
    static const std::regex kTensor(R"((?:blk\.(\d+)\.)?([a-z0-9_.]+))");
    std::smatch m;
    if (!std::regex_match(name, m, kTensor)) return {};
    const auto& modules = m[1].matched ? layer : top;
    const std::string prefix = m[1].matched ? "model.layers." + m[1].str() + "." : "";
    const std::string kind = m[2].str();
    // A whole name first: a tensor Hugging Face names without its module's suffix ("ssm_a").
    if (const auto whole = modules.find(kind); whole != modules.end())
        return prefix + whole->second;
    const std::size_t dot = kind.rfind('.');
    const std::string suffix = dot == std::string::npos ? "" : kind.substr(dot + 1);
    if (suffix != "weight" && suffix != "bias") return {};
    const auto module = modules.find(kind.substr(0, dot));
    return module == modules.end() ? std::string() : prefix + module->second + "." + suffix;
}

LinearWeights columnsOf(const LinearWeights& w, int first, int count) {
    return {w.weight.columns(first, count), w.bias.empty() ? w.bias : w.bias.slice(first, count)};
}

void bindLlamaAttention(TensorBinder& b, const Architecture& c, const std::string& p, bool qkvBias,
                        LayerWeights& layer, bool outputBias) {
    const int d = c.dModel;
    const int qWidth = c.heads * c.headDim;
    const int kvWidth = c.kvHeads * c.headDim;
    layer.query = linearLayer(b, p + "q_proj", d, qWidth, qkvBias);
    layer.key = linearLayer(b, p + "k_proj", d, kvWidth, qkvBias);
    layer.value = linearLayer(b, p + "v_proj", d, kvWidth, qkvBias);
    layer.output = linearLayer(b, p + "o_proj", qWidth, d, outputBias);
}

void bindQkNorm(TensorBinder& b, const Architecture& c, const std::string& p, LayerWeights& layer,
                bool unitOffset) {
    const bool whole = c.qkNorm == QkNorm::Whole;
    const int qWidth = whole ? c.heads * c.headDim : c.headDim;
    const int kWidth = whole ? c.kvHeads * c.headDim : c.headDim;
    auto norm = [&](const std::string& module, int width) -> NormWeights {
        return {unitOffset ? b.unitOffsetNormWeight(module, width) : b.normWeight(module, width),
                {}};
    };
    layer.queryNorm = norm(p + "q_norm", qWidth);
    layer.keyNorm = norm(p + "k_norm", kWidth);
}

void bindGatedMlp(TensorBinder& b, const Architecture& c, const std::string& p,
                  LayerWeights& layer) {
    layer.mlpGate = linearLayer(b, p + "gate_proj", c.dModel, c.dFF, c.mlpBias);
    layer.mlpIn = linearLayer(b, p + "up_proj", c.dModel, c.dFF, c.mlpBias);
    layer.mlpOut = linearLayer(b, p + "down_proj", c.dFF, c.dModel, c.mlpBias);
}

MixtureOfExperts readExperts(const ConfigReader& r, const char* expertsKey, int width,
                             bool normalizeTopK) {
    MixtureOfExperts m;
    m.experts = r.positiveInt(expertsKey);
    m.perToken = r.positiveInt("num_experts_per_tok");
    if (m.perToken > m.experts)
        r.fail("\"num_experts_per_tok\" (" + std::to_string(m.perToken) + ") exceeds the " +
               std::to_string(m.experts) + " experts");
    m.width = width;
    m.normalizeTopK = normalizeTopK;
    return m;
}

void bindExperts(TensorBinder& b, const Architecture& c, const std::string& p,
                 const ExpertNames& names, LayerWeights& layer) {
    const int d = c.dModel, width = c.moe.width;
    layer.router = linearLayer(b, p + "gate", d, c.moe.experts, false);
    if (b.has(p + "experts.gate_up_proj")) {  // fused: [experts, gate | up, d], [experts, d, I]
        for (int e = 0; e < c.moe.experts; ++e) {
            const MatrixView gateUp =
                b.stackedMatrix(p + "experts.gate_up_proj", c.moe.experts, 2 * width, d, e)
                    .transposed();
            layer.experts.push_back(
                {{gateUp.columns(width, width), {}},
                 {gateUp.columns(0, width), {}},
                 {b.stackedMatrix(p + "experts.down_proj", c.moe.experts, d, width, e).transposed(),
                  {}}});
        }
        return;
    }
    for (int e = 0; e < c.moe.experts; ++e) {
        const std::string expert = p + "experts." + std::to_string(e) + ".";
        layer.experts.push_back({linearLayer(b, expert + names.up, d, width, false),
                                 linearLayer(b, expert + names.gate, d, width, false),
                                 linearLayer(b, expert + names.down, width, d, false)});
    }
}

}  // namespace qkv::families

namespace qkv::families {

std::vector<LayerWeights> bindLayersByIndex(const Architecture& c, const std::string& layerPrefix,
                                            const IndexedLayerBinder& bindLayer) {
    std::vector<LayerWeights> layers(c.layers);
    for (int i = 0; i < c.layers; ++i)
        bindLayer(layerPrefix + std::to_string(i) + ".", i, layers[i]);
    return layers;
}

ModelWeights bindDecoderStack(TensorBinder& b, const Architecture& c,
                              const IndexedLayerBinder& bindLayer, bool unitOffsetFinalNorm) {
    ModelWeights w;
    w.tokenEmbedding = b.matrix("embed_tokens.weight", c.vocabSize, c.dModel);
    w.layers = bindLayersByIndex(c, "layers.", bindLayer);
    w.finalNorm = unitOffsetFinalNorm ? NormWeights{b.unitOffsetNormWeight("norm", c.dModel), {}}
                                      : rmsNorm(b, "norm", c.dModel);
    w.lmHead.weight = outputProjection(b, c, "lm_head.weight", w.tokenEmbedding);
    return w;
}

std::vector<LayerWeights> bindLayers(const Architecture& c, const std::string& layerPrefix,
                                     const LayerPartBinder& bindLayer) {
    return bindLayersByIndex(
        c, layerPrefix,
        [&](const std::string& prefix, int, LayerWeights& layer) { bindLayer(prefix, layer); });
}

void bindLinears(TensorBinder& b, const Architecture& c, const std::string& p,
                 const LinearNames& names, bool bias, LayerWeights& layer) {
    const int d = c.dModel;
    const std::pair<const std::string&, LinearWeights*> square[] = {{names.query, &layer.query},
                                                                    {names.key, &layer.key},
                                                                    {names.value, &layer.value},
                                                                    {names.output, &layer.output}};
    for (const auto& [name, slot] : square)
        if (!name.empty()) *slot = linearLayer(b, p + name, d, d, bias);
    if (!names.mlpIn.empty()) layer.mlpIn = linearLayer(b, p + names.mlpIn, d, c.dFF, bias);
    if (!names.mlpOut.empty()) layer.mlpOut = linearLayer(b, p + names.mlpOut, c.dFF, d, bias);
}

}  // namespace qkv::families
