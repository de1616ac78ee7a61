// Ministral 3 (keys under "model."): Mistral's decoder (pre-RMSNorm, SwiGLU, rotary — YaRN on the
// Hub's models — and a sliding window in every layer where the config sets one) whose queries,
// after rotary, are multiplied by a temperature that grows with the position:
// 1 + llama_4_scaling_beta · ln(1 + floor(p / original_max_position_embeddings)), both keys of
// rope_parameters. The Hub's Mistral 3 (mistral3, Mistral3ForConditionalGeneration) wraps it with
// a Pixtral vision tower: its text model opens, under language_model.model.* with
// language_model.lm_head.weight.
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.slidingWindow = r.positiveIntOr("sliding_window", 0);
    if (const std::optional<ConfigReader> rope = r.object("rope_parameters")) {
        c.queryTemperature.beta = rope->numberOr("llama_4_scaling_beta", 0.0f);
        c.queryTemperature.interval = rope->positiveIntOr("original_max_position_embeddings", 0);
        if (c.queryTemperature.beta != 0.0f && c.queryTemperature.interval == 0)
            rope->fail("\"llama_4_scaling_beta\" needs \"original_max_position_embeddings\"");
    }
}

void readMultimodal(const ConfigReader& r, Architecture& c) {
    readWrappedText(r, c, read, "Mistral 3");
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", false);  // transformers reads the top's
}

ModelWeights bind(TensorBinder& b, const Architecture& c) { return bindLlamaDecoder(b, c, false); }

}  // namespace

ModelFamily ministral3() { return {"ministral3", {"ministral3"}, {"model.", ""}, read, bind}; }

ModelFamily mistral3Multimodal() {
    return {"mistral3",
            {"mistral3"},
            {"language_model.model.", "language_model.", "model.language_model.", "model.", ""},
            readMultimodal,
            bind};
}

}  // namespace qkv::families
