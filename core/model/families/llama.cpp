// Llama and Mistral (keys under "model."): pre-RMSNorm, rotary positions in Hugging Face's
// rotate_half order (q_proj/k_proj rows as HF's conversion permutes them) with any rope_scaling
// transformers defines (Llama 3.x: llama3), SwiGLU, grouped-query attention. Mistral's
// sliding_window applies in every layer; attention_bias and mlp_bias add biases. Qwen2 is the same
// with q/k/v biases.
#include "core/model/families/binding.h"
#include "core/model/gguf_config.h"

namespace qkv::families {
namespace {

void readLlama(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.attentionBias = c.attentionOutputBias = r.boolOr("attention_bias", false);
    c.mlpBias = r.boolOr("mlp_bias", false);
    if (c.modelType == "mistral") c.slidingWindow = r.positiveIntOr("sliding_window", 0);
}

void readQwen2(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    if (r.boolOr("use_sliding_window", false))
        r.fail("\"use_sliding_window\": true (Qwen2's windowed layers) is not supported");
}

ModelWeights bindLlama(TensorBinder& b, const Architecture& c) {
    return bindLlamaDecoder(b, c, c.attentionBias, c.attentionOutputBias);
}
ModelWeights bindQwen2(TensorBinder& b, const Architecture& c) {
    return bindLlamaDecoder(b, c, true);
}

// llama.cpp writes Mixtral as "llama" with experts.
nlohmann::json llamaGguf(const GgufModelReader& r, std::int64_t vocab, bool tied, GgufTensors&) {
    if (r.integer("expert_count").value_or(0) > 0) return mixtralGgufConfig(r, vocab, tied);
    return ggufDecoderConfig(r, vocab, tied, "llama");
}

}  // namespace

ModelWeights bindLlamaDecoder(TensorBinder& b, const Architecture& c, bool qkvBias, bool outputBias,
                              const MlpBinder& mlp) {
    const int d = c.dModel;
    return bindDecoderStack(b, c, [&](const std::string& p, int l, LayerWeights& layer) {
        layer.attentionNorm = rmsNorm(b, p + "input_layernorm", d);
        bindLlamaAttention(b, c, p + "self_attn.", qkvBias, layer, outputBias);
        if (c.qkNorm != QkNorm::None) bindQkNorm(b, c, p + "self_attn.", layer);
        layer.mlpNorm = rmsNorm(b, p + "post_attention_layernorm", d);
        if (mlp)
            mlp(p, l, layer);
        else
            bindGatedMlp(b, c, p + "mlp.", layer);
    });
}

ModelFamily llama() {
    ModelFamily f{"llama", {"llama", "mistral"}, {"model.", ""}, readLlama, bindLlama};
    f.gguf = {.architectures = {"llama"}, .config = llamaGguf, .interleavedQk = true};
    return f;
}
ModelFamily qwen2() {
    ModelFamily f{"qwen2", {"qwen2"}, {"model.", ""}, readQwen2, bindQwen2};
    f.gguf = {.architectures = {"qwen2"}};
    f.tokenizer.style = TokenizerHints::Style::Qwen2;
    return f;
}

}  // namespace qkv::families
