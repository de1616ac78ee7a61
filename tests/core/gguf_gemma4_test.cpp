// Gemma 4 as llama.cpp's converter writes it (architecture "gemma4"): the layers' kinds as
// attention.sliding_window_pattern, their key/value heads per layer (head_count_kv an array), the
// local layers' widths and rotary under *_swa keys, the global layers' proportional rotary as the
// rope_freqs divisors (1 for the pairs that turn, 1e30 for the rest), no attn_v where the values
// are the keys (attention_k_eq_v), norms as they are and layer_scalar as layer_output_scale.
// Written from the shared reference it must compute as transformers does.
#include <gtest/gtest.h>

#include "core/io/gguf_writer.h"
#include "core/model/forward.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/gguf_from_folder.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

// shared/models/gemma4-random-tiny's config.json: 4 layers alternating local (heads of 16, 2
// key/value heads, window 4, rotary base 1e4) and global (heads of 32, 1 key/value head whose
// values are its keys, a quarter of the pairs turning at base 1e6), d_model 64, 4 heads, MLP
// 128, final soft-cap 30, tied output.
constexpr int kLayers = 4;

test::GgufFromFolder gemma4AsGguf(const std::filesystem::path& folder,
                                  const std::vector<std::int32_t>& kvHeads = {2, 1, 2, 1}) {
    test::GgufFromFolder converted(folder);
    converted.describe({.arch = "gemma4", .layers = kLayers, .kvHeads = 0, .ropeBase = 1e6f});
    GgufWriter& gguf = converted.gguf();
    const std::string a = "gemma4.";
    gguf.addBools(a + "attention.sliding_window_pattern", {true, false, true, false});
    gguf.addInt32s(a + "attention.head_count_kv", kvHeads);
    gguf.addUint32(a + "attention.key_length", 32);
    gguf.addUint32(a + "attention.value_length", 32);
    gguf.addUint32(a + "attention.key_length_swa", 16);
    gguf.addUint32(a + "attention.value_length_swa", 16);
    gguf.addUint32(a + "attention.sliding_window", 4);
    gguf.addUint32(a + "rope.dimension_count", 32);
    gguf.addUint32(a + "rope.dimension_count_swa", 16);
    gguf.addFloat32(a + "rope.freq_base_swa", 1e4f);
    gguf.addFloat32(a + "final_logit_softcapping", 30.0f);
    gguf.addUint32(a + "embedding_length_per_layer_input", 0);
    gguf.addUint32(a + "attention.shared_kv_layers", 0);
    // 16 pairs of a global head, the first quarter turning.
    std::vector<float> divisors(16, 1e30f);
    std::fill_n(divisors.begin(), 4, 1.0f);
    gguf.addTensor("rope_freqs.weight", {16}, divisors);
    converted.addEmbeddingsAndHead(false);
    for (int l = 0; l < kLayers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        const std::string hf = "model.layers." + std::to_string(l) + ".";
        converted.addLayer(l, {{"attn_norm", "input_layernorm"},
                               {"attn_q", "self_attn.q_proj"},
                               {"attn_k", "self_attn.k_proj"},
                               {"attn_output", "self_attn.o_proj"},
                               {"attn_q_norm", "self_attn.q_norm"},
                               {"attn_k_norm", "self_attn.k_norm"},
                               {"post_attention_norm", "post_attention_layernorm"},
                               {"ffn_norm", "pre_feedforward_layernorm"},
                               {"post_ffw_norm", "post_feedforward_layernorm"}});
        converted.addLayer(l, test::kGatedMlpTensors);
        if (l % 2 == 0) converted.add(blk + "attn_v.weight", hf + "self_attn.v_proj.weight");
        converted.add(blk + "layer_output_scale.weight", hf + "layer_scalar");
    }
    return converted;
}

TEST(GgufGemma4, ComputesAsTransformersDoes) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "gemma4-random-tiny";
    const test::TempDir dir;
    gemma4AsGguf(folder).write(dir.path() / "gemma4.gguf");
    const auto model = Model::open(dir.path() / "gemma4.gguf");
    const Architecture& c = model->architecture();
    EXPECT_EQ(c.family, "gemma4_text");
    EXPECT_TRUE(c.kindOf(1).valueIsKey);
    EXPECT_FALSE(c.kindOf(0).valueIsKey);
    EXPECT_EQ(c.kindOf(1).headDim, 32);
    EXPECT_EQ(c.kindOf(1).kvHeads, 1);
    // As ForwardReference on the folder: float32 against transformers' float64 reference.
    test::expectOriginalResults(*model, test::loadReference(folder / "hf_reference.json"), 1e-4,
                                5e-4);
}

// Gemma 4's kinds of layer must agree with what the file says of each.
TEST(GgufGemma4, RefusesKeyValueHeadsThatDifferWithinAKind) {
    QKV_REQUIRE_SHARED(shared);
    test::GgufFromFolder converted =
        gemma4AsGguf(shared / "models" / "gemma4-random-tiny", {2, 1, 4, 1});
    const test::TempDir dir;
    converted.write(dir.path() / "gemma4.gguf");
    const std::string error = test::openingError(dir.path() / "gemma4.gguf");
    EXPECT_NE(error.find("every local layer the same key/value heads"), std::string::npos) << error;
}

}  // namespace
}  // namespace qkv
