// ModernBERT as llama.cpp's converter writes it (architecture "modern-bert", converted as an
// embedding model): its own tensor names (token_embd_norm, attn_qkv for the fused Wqkv, ffn_up
// for the GeGLU's Wi, no attn_norm in layer 0), the window and the period of global layers as
// attention.sliding_window and sliding_window_pattern, the global and local rotary bases as
// rope.freq_base and rope.freq_base_swa, LayerNorm's epsilon, and the head's transform as cls
// and cls.norm without the masked-LM decoder's bias. Written from the shared reference, every
// head under every configuration must be transformers' own; the model has no logits.
#include <gtest/gtest.h>

#include "core/io/gguf_writer.h"
#include "core/model/forward.h"
#include "core/model/w_configuration.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/gguf_from_folder.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

// shared/models/modernbert-random-tiny's config.json: 4 layers, every third global from layer 0
// (so 0 and 3), local ones seeing keys within local_attention 4 / 2 on either side, rotary
// bases 160000 (global) and 10000 (local), d_model 64, 4 heads, GeGLU MLP 96, LayerNorm 1e-5.
constexpr int kLayers = 4;

test::GgufFromFolder modernBertAsGguf(const std::filesystem::path& folder) {
    test::GgufFromFolder converted(folder);
    converted.describe({.arch = "modern-bert",
                        .layers = kLayers,
                        .feedForward = 96,
                        .kvHeads = 4,
                        .ropeBase = 160000.0f});
    GgufWriter& gguf = converted.gguf();
    const std::string a = "modern-bert.";
    gguf.addFloat32(a + "attention.layer_norm_epsilon", 1e-5f);
    gguf.addUint32(a + "attention.sliding_window", 4);
    gguf.addUint32(a + "attention.sliding_window_pattern", 3);
    gguf.addFloat32(a + "rope.freq_base_swa", 1e4f);
    gguf.addBool(a + "attention.causal", false);
    converted.add("token_embd.weight", "model.embeddings.tok_embeddings.weight");
    converted.add("token_embd_norm.weight", "model.embeddings.norm.weight");
    converted.add("output_norm.weight", "model.final_norm.weight");
    // The masked-LM head's transform, as the converter keeps it; its decoder bias is not kept.
    converted.add("cls.weight", "head.dense.weight");
    converted.add("cls.norm.weight", "head.norm.weight");
    for (int l = 0; l < kLayers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        const std::string hf = "model.layers." + std::to_string(l) + ".";
        if (l > 0) converted.add(blk + "attn_norm.weight", hf + "attn_norm.weight");
        converted.addLayer(l, {{"attn_qkv", "attn.Wqkv"},
                               {"attn_output", "attn.Wo"},
                               {"ffn_norm", "mlp_norm"},
                               {"ffn_up", "mlp.Wi"},
                               {"ffn_down", "mlp.Wo"}});
    }
    return converted;
}

TEST(GgufModernBert, EveryHeadUnderEveryConfigurationIsTransformers) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "modernbert-random-tiny";
    const test::TempDir dir;
    modernBertAsGguf(folder).write(dir.path() / "modernbert.gguf");
    const auto model = Model::open(dir.path() / "modernbert.gguf");
    const Architecture& c = model->architecture();
    EXPECT_EQ(c.family, "modernbert");
    EXPECT_FALSE(c.causal);
    for (int l = 0; l < kLayers; ++l) EXPECT_EQ(c.kindOf(l).local, l % 3 != 0) << "layer " << l;
    // Without the decoder's bias the masked-LM logits would not be the checkpoint's.
    EXPECT_FALSE(model->hasLogits());

    const auto reference = test::loadReference(folder / "hf_reference.json");
    auto backend = createCpuBackend();
    ForwardPass pass(*model, *backend);
    for (const char* configuration : {"original", "shared-qk", "tied-kv", "single-w"}) {
        SCOPED_TRACE(configuration);
        for (const auto& sentence : reference.sentences) {
            SCOPED_TRACE(sentence.text);
            ForwardRequest request;
            request.ids = sentence.ids;
            request.config = WConfiguration::parse(
                std::string(configuration) == "original" ? "learned" : configuration);
            const ForwardResult result = pass.run(request);
            // As ForwardReference on the folder: float32 against transformers' float64.
            EXPECT_LE(
                test::worstDifference(result.trace, sentence.results.at(configuration).attentions),
                1e-4);
        }
    }
}

// The family reads no biases; a file with them is refused rather than computed without.
TEST(GgufModernBert, RefusesAttentionBiases) {
    QKV_REQUIRE_SHARED(shared);
    test::GgufFromFolder converted = modernBertAsGguf(shared / "models" / "modernbert-random-tiny");
    converted.gguf().addTensor("blk.0.attn_qkv.bias", {192}, std::vector<float>(192, 0.0f));
    const test::TempDir dir;
    converted.write(dir.path() / "modernbert.gguf");
    const std::string error = test::openingError(dir.path() / "modernbert.gguf");
    EXPECT_NE(error.find("attention_bias"), std::string::npos) << error;
}

}  // namespace
}  // namespace qkv
