// Gemma 3n (the Hub's Gemma3nForConditionalGeneration keeps its text stack under
// "model.language_model." and its description in "text_config"; "gemma3n_text" is the text model
// alone): Gemma 4's layer — √d embeddings, plain x·w RMSNorms before and after each sublayer,
// QK-norm over each head and a weightless v_norm before rotary, scores not scaled, GELU(tanh)-gated
// MLP, local and global layers with rotary of their own, tied output with soft-capped logits —
// inside AltUp's residual streams (Architecture::streams), with
//   - LAuReL beside each attention (laurel_rank);
//   - per-layer inputs (hidden_size_per_layer_input) from a table of their own and the
//     embedding's projection, gated into the streams after each layer;
//   - the last num_kv_shared_layers layers attending over the keys and values of the last earlier
//     layer of their type (LayerKind::keyValueSource); the files keep their unused k_proj, v_proj
//     and k_norm, which transformers ignores on load, and so does this reader;
//   - activation sparsity (activation_sparsity_pattern): the MLP gate's Gaussian top-k.
// Only the text is read: image and audio inputs are not shown.
#include <cmath>

#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

// The standard normal quantile of the float32 p that transformers' activation sparsity takes
// (torch's Normal(0, 1).icdf(p) in float32): √2 · erfinv(2p − 1), 2p − 1 in float32 as there,
// erfinv by Newton's method on erf in double, rounded once. torch's float32 erfinv rounds
// differently by an ulp (0.95 gives 1.6448533535 there, 1.6448534 here): a cutoff that moves by
// 1e-7 standard deviations.
float gaussianQuantile(float p) {
    const float t = 2.0f * p - 1.0f;
    double x = 0.0;
    for (int step = 0; step < 100; ++step) {
        const double next = x - (std::erf(x) - t) / (2.0 / std::sqrt(M_PI) * std::exp(-x * x));
        if (next == x) break;
        x = next;
    }
    return static_cast<float>(x * std::sqrt(2.0));
}

// The list a config gives per layer, or one value for every layer.
std::vector<double> perLayer(const ConfigReader& r, const char* key, int layers, double fallback) {
    if (!r.isList(key)) return std::vector<double>(layers, r.numberOr(key, fallback));
    std::vector<double> values = r.numbers(key);
    if (static_cast<int>(values.size()) != layers)
        r.fail(std::string("\"") + key + "\" must have one entry per layer (" +
               std::to_string(layers) + "), not " + std::to_string(values.size()));
    return values;
}

void readSharedKeyValues(const ConfigReader& r, Architecture& c,
                         const std::vector<std::string>& types) {
    const int shared = r.nonNegativeIntOr("num_kv_shared_layers", 15);
    if (shared >= c.layers)
        r.fail("\"num_kv_shared_layers\" (" + std::to_string(shared) +
               ") leaves no layer to compute keys and values for the " + std::to_string(c.layers) +
               " layers");
    const int first = c.layers - shared;
    for (int l = first; l < c.layers; ++l) {
        int source = first - 1;
        while (source >= 0 && types[source] != types[l]) --source;
        if (source < 0)
            r.fail("layer " + std::to_string(l) + " shares keys and values (num_kv_shared_layers " +
                   std::to_string(shared) + "), but no earlier layer is a " + types[l] + " one");
        c.layerKinds[l].keyValueSource = source;
    }
}

void readText(const ConfigReader& r, Architecture& c) {
    if (r.boolOr("attention_bias", false)) r.fail("attention_bias is not supported for Gemma 3n");
    c.layers = r.positiveIntOr("num_hidden_layers", 35);
    c.heads = r.positiveIntOr("num_attention_heads", 8);
    c.kvHeads = r.positiveIntOr("num_key_value_heads", 2);
    c.dModel = r.widthOr("hidden_size", 2048);
    const std::vector<double> widths = perLayer(r, "intermediate_size", c.layers, 16384);
    for (double w : widths)
        if (w != widths.front() || w < 1 || w > ConfigReader::kMaxWidth)
            r.fail("\"intermediate_size\" must give every layer the same positive MLP width");
    c.dFF = static_cast<int>(widths.front());
    c.vocabSize = r.positiveIntOr("vocab_size", 262400);
    c.contextLength = r.positiveIntOr("max_position_embeddings", 32768);
    c.headDim = r.widthOr("head_dim", 256);
    c.normEps = r.numberOr("rms_norm_eps", 1e-6f);
    c.norm = NormKind::RmsNorm;
    c.embeddingScale = std::sqrt(static_cast<float>(c.dModel));
    const std::string act = r.stringOr("hidden_activation", "gelu_pytorch_tanh");
    if (act != "gelu_pytorch_tanh")
        r.fail("hidden_activation \"" + act + "\" is not supported (only \"gelu_pytorch_tanh\")");
    c.activation = Activation::GeluTanhGlu;
    c.attentionScale = 1.0f;
    c.logitSoftCap = r.numberOr("final_logit_softcapping", 30.0f);
    c.slidingWindow = r.positiveIntOr("sliding_window", 512);
    c.qkNorm = QkNorm::PerHead;
    c.tiedEmbeddings = true;  // Gemma 3n's output head is its token embedding

    // Four local layers per global one unless layer_types says otherwise.
    std::vector<std::string> types(c.layers);
    for (int l = 0; l < c.layers; ++l)
        types[l] = (l + 1) % 5 == 0 ? "full_attention" : "sliding_attention";
    if (r.has("layer_types")) types = r.strings("layer_types");
    c.layerKinds.assign(c.layers, LayerKind{});
    readLayerTypes(r, c);
    if (!r.has("layer_types"))
        for (int l = 0; l < c.layers; ++l) c.layerKinds[l].local = types[l] != "full_attention";
    readSharedKeyValues(r, c, types);
    const std::vector<double> sparsity = perLayer(r, "activation_sparsity_pattern", c.layers, 0.0);
    for (int l = 0; l < c.layers; ++l) {
        if (!(sparsity[l] >= 0.0 && sparsity[l] < 1.0))
            r.fail("\"activation_sparsity_pattern\" must hold fractions in [0, 1)");
        if (sparsity[l] > 0.0)
            c.layerKinds[l].gateCutoff = gaussianQuantile(static_cast<float>(sparsity[l]));
    }
    c.positions = Positions::Rotary;
    c.rotary = readRotary(r, c.headDim, c.contextLength, {1e6}, "full_attention");
    c.localRotary = readRotary(r, c.headDim, c.contextLength,
                               {10000.0, "rope_local_base_freq", false}, "sliding_attention");

    c.streams.count = r.positiveIntOr("altup_num_inputs", 4);
    c.streams.active = r.nonNegativeIntOr("altup_active_idx", 0);
    c.streams.gainBeforeGate = r.boolOr("altup_correct_scale", true);
    if (c.streams.active >= c.streams.count)
        r.fail("\"altup_active_idx\" (" + std::to_string(c.streams.active) +
               ") must name one of the " + std::to_string(c.streams.count) + " AltUp streams");
    c.laurelRank = r.nonNegativeIntOr("laurel_rank", 64);
    c.perLayerInputs.width = r.nonNegativeIntOr("hidden_size_per_layer_input", 256);
    c.perLayerInputs.vocab = r.positiveIntOr("vocab_size_per_layer_input", 262144);
    if (static_cast<std::int64_t>(c.layers) * c.perLayerInputs.width > ConfigReader::kMaxWidth)
        r.fail(
            "\"hidden_size_per_layer_input\" times the layers exceeds the width QKV Lab "
            "supports");
}

void readMultimodal(const ConfigReader& r, Architecture& c) {
    readWrappedText(r, c, readText, "Gemma 3n", "image and audio inputs");
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel, streams = c.streams.count, rank = c.laurelRank;
    const int width = c.perLayerInputs.width;
    ModelWeights w = bindDecoderStack(b, c, [&](const std::string& p, int l, LayerWeights& layer) {
        const std::string a = p + "self_attn.";
        layer.attentionNorm = rmsNorm(b, p + "input_layernorm", d);
        layer.query = linearLayer(b, a + "q_proj", d, c.heads * c.headDim, false);
        layer.queryNorm = {b.normWeight(a + "q_norm", c.headDim), {}};
        // A shared layer's keys and values are its source's: the weights shown for it too.
        const int source = c.kindOf(l).keyValueSource;
        const std::string kv = source >= 0 ? "layers." + std::to_string(source) + ".self_attn." : a;
        layer.key = linearLayer(b, kv + "k_proj", d, c.kvHeads * c.headDim, false);
        layer.value = linearLayer(b, kv + "v_proj", d, c.kvHeads * c.headDim, false);
        layer.keyNorm = {b.normWeight(kv + "k_norm", c.headDim), {}};
        layer.valueNorm.gamma = b.computedVector(std::vector<float>(c.headDim, 1.0f));
        layer.output = linearLayer(b, a + "o_proj", c.heads * c.headDim, d, false);
        layer.attentionOutputNorm = rmsNorm(b, p + "post_attention_layernorm", d);
        layer.mlpNorm = rmsNorm(b, p + "pre_feedforward_layernorm", d);
        bindGatedMlp(b, c, p + "mlp.", layer);
        layer.mlpOutputNorm = rmsNorm(b, p + "post_feedforward_layernorm", d);

        const std::string u = p + "altup.";
        layer.streamRouterNorm = rmsNorm(b, u + "router_norm", d);
        layer.streamRouter = linearLayer(b, u + "modality_router", d, streams, false);
        layer.predictionCoefficients =
            b.flatVector(u + "prediction_coefs.weight", {streams * streams, streams});
        layer.correctionCoefficients =
            b.flatVector(u + "correction_coefs.weight", {streams, streams});
        if (c.streams.gainBeforeGate) layer.streamGain = b.vector(u + "correct_output_scale", d);
        if (rank > 0) {
            layer.laurelDown = linearLayer(b, p + "laurel.linear_left", d, rank, false);
            layer.laurelUp = linearLayer(b, p + "laurel.linear_right", rank, d, false);
            layer.laurelNorm = rmsNorm(b, p + "laurel.post_laurel_norm", d);
        }
        if (width > 0) {
            layer.perLayerGate = linearLayer(b, p + "per_layer_input_gate", d, width, false);
            layer.perLayerProjection = linearLayer(b, p + "per_layer_projection", width, d, false);
            layer.perLayerNorm = rmsNorm(b, p + "post_per_layer_input_norm", d);
        }
    });
    for (int i = 1; i < streams; ++i) {
        const std::string index = std::to_string(i - 1);
        w.streamParts.streamUp.push_back(linearLayer(b, "altup_projections." + index, d, d, false));
        w.streamParts.streamDown.push_back(
            linearLayer(b, "altup_unembed_projections." + index, d, d, false));
    }
    if (width > 0) {
        w.perLayerEmbedding = b.matrix("embed_tokens_per_layer.weight", c.perLayerInputs.vocab,
                                       static_cast<std::int64_t>(c.layers) * width);
        LinearWeights& projection = w.streamParts.perLayerProjection;
        projection = linearLayer(b, "per_layer_model_projection", d, c.layers * width, false);
        projection.scale = static_cast<float>(std::pow(static_cast<double>(d), -0.5));
        w.streamParts.perLayerNorm = {b.normWeight("per_layer_projection_norm", width), {}};
    }
    return w;
}

}  // namespace

ModelFamily gemma3nText() {
    return {"gemma3n_text",
            {"gemma3n_text"},
            {"model.language_model.", "model.", "language_model.model."},
            readText,
            bind};
}

ModelFamily gemma3n() {
    return {"gemma3n",
            {"gemma3n"},
            {"model.language_model.", "language_model.model."},
            readMultimodal,
            bind};
}

}  // namespace qkv::families
