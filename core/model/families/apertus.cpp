// Apertus (keys under "model."): Llama's pre-norm decoder under other names
// (attention_layernorm, feedforward_layernorm) with an RMSNorm over each head of q and k before
// rotary (llama3 scaling on the Hub's models), and an MLP without a gate, down(xIELU(up x)), whose
// activation has each layer's own learned scalars (mlp.act_fn.alpha_p, alpha_n, beta, eps).
#include <cmath>

#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryShape(r, c, 65536, 0);
    const std::string act = r.stringOr("hidden_act", "xielu");
    if (act != "xielu") r.fail("hidden_act \"" + act + "\" is not supported (only \"xielu\")");
    c.activation = Activation::XIelu;
    c.qkNorm = QkNorm::PerHead;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", false);
    c.attentionBias = c.attentionOutputBias = r.boolOr("attention_bias", false);
    c.mlpBias = r.boolOr("mlp_bias", false);
}

double softplus(double x) { return x > 20.0 ? x : std::log1p(std::exp(x)); }  // torch's

// The layer's xIELU as transformers derives it from the stored scalars.
XIeluParameters xieluOf(TensorBinder& b, const std::string& p) {
    auto scalar = [&](const char* name) { return double{b.flatVector(p + name, {1})[0]}; };
    const double beta = scalar("beta");
    return {static_cast<float>(softplus(scalar("alpha_p"))),
            static_cast<float>(beta + softplus(scalar("alpha_n"))), static_cast<float>(beta),
            static_cast<float>(scalar("eps"))};
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    return bindDecoderStack(b, c, [&](const std::string& p, int, LayerWeights& layer) {
        layer.attentionNorm = rmsNorm(b, p + "attention_layernorm", d);
        bindLlamaAttention(b, c, p + "self_attn.", c.attentionBias, layer, c.attentionOutputBias);
        bindQkNorm(b, c, p + "self_attn.", layer);
        layer.mlpNorm = rmsNorm(b, p + "feedforward_layernorm", d);
        layer.mlpIn = linearLayer(b, p + "mlp.up_proj", d, c.dFF, c.mlpBias);
        layer.mlpOut = linearLayer(b, p + "mlp.down_proj", c.dFF, d, c.mlpBias);
        layer.xielu = xieluOf(b, p + "mlp.act_fn.");
    });
}

}  // namespace

ModelFamily apertus() { return {"apertus", {"apertus"}, {"model.", ""}, read, bind}; }

}  // namespace qkv::families
