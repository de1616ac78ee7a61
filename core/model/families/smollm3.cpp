// SmolLM3 (keys under "model."): Llama's decoder with NoPE layers — no_rope_layers[l] is 1 where
// layer l rotates its queries and keys and 0 where it does not (every no_rope_layer_interval-th
// layer when the list is absent). Sliding windows only with use_sliding_window.
#include "core/model/families/binding.h"
#include "core/model/gguf_config.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);  // SmolLM3Config's default
    if (r.boolOr("attention_bias", false) || r.boolOr("mlp_bias", false))
        r.fail("attention_bias / mlp_bias are not supported for SmolLM3");
    if (r.boolOr("use_sliding_window", false)) {
        c.slidingWindow = r.positiveIntOr("sliding_window", 4096);
        readLayerTypes(r, c);
    }
    if (c.layerKinds.empty()) c.layerKinds.assign(c.layers, LayerKind{c.slidingWindow > 0, true});
    std::vector<int> rotates;
    if (r.has("no_rope_layers")) {
        rotates = r.integers("no_rope_layers");
    } else {
        const int interval = r.positiveIntOr("no_rope_layer_interval", 4);
        for (int l = 0; l < c.layers; ++l) rotates.push_back((l + 1) % interval != 0 ? 1 : 0);
    }
    if (static_cast<int>(rotates.size()) != c.layers)
        r.fail("\"no_rope_layers\" lists " + std::to_string(rotates.size()) +
               " layers; the model has " + std::to_string(c.layers));
    for (int l = 0; l < c.layers; ++l) c.layerKinds[l].rotary = rotates[l] != 0;
}

ModelWeights bind(TensorBinder& b, const Architecture& c) { return bindLlamaDecoder(b, c, false); }

// llama.cpp leaves every fourth SmolLM3 layer without rotary, as transformers' default does.
nlohmann::json ggufConfig(const GgufModelReader& r, std::int64_t vocab, bool tied, GgufTensors&) {
    nlohmann::json c = ggufDecoderConfig(r, vocab, tied, "smollm3");
    c["no_rope_layer_interval"] = 4;
    return c;
}

}  // namespace

// Its converter is Llama's: W_Q and W_K rows are interleaved too.
ModelFamily smollm3() {
    ModelFamily f{"smollm3", {"smollm3"}, {"model.", ""}, read, bind};
    f.gguf = {.architectures = {"smollm3"}, .config = ggufConfig, .interleavedQk = true};
    return f;
}

}  // namespace qkv::families
