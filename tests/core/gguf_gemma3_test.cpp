// Gemma 3 GGUF files (general.architecture = gemma3). The shared gemma3 reference model is
// written as llama.cpp's converter writes it: every norm (q and k norms too) stored as 1 + w, no
// output matrix (tied), and none of what llama.cpp fixes for the architecture — five local layers
// per global one, local layers at rotary base 10000, and queries scaled by 1/sqrt(key_length)
// (d_model / heads for the 27B model) instead of transformers' query_pre_attn_scalar, which the
// file does not keep. The oracle is the folder itself (its reader matches transformers on every
// head, ForwardReference) with query_pre_attn_scalar set to that scale.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/model/forward.h"
#include "core/model/gguf_checkpoint.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/gguf_from_folder.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

// The same weights through two readers (one with its norms less one again): float32 rounding.
constexpr double kAttentionTolerance = 1e-5;
constexpr double kLogitTolerance = 1e-4;

// gemma3-random-tiny's config.json: 6 layers (the sixth global), d_model 64, 4 heads of 32,
// 2 key/value heads, window 4, rope_theta 1e6 with linear ×8, rope_local_base_freq 10000.
constexpr int kLayers = 6, kHeads = 4, kKvHeads = 2, kHeadDim = 32;

void writeGemma3(const std::filesystem::path& folder, const std::filesystem::path& file) {
    test::GgufFromFolder converted(folder);
    GgufWriter& gguf = converted.gguf();
    gguf.addString("general.architecture", "gemma3");
    gguf.addUint32("gemma3.block_count", kLayers);
    gguf.addUint32("gemma3.context_length", 128);
    gguf.addUint32("gemma3.embedding_length", 64);
    gguf.addUint32("gemma3.feed_forward_length", 128);
    gguf.addUint32("gemma3.attention.head_count", kHeads);
    gguf.addUint32("gemma3.attention.head_count_kv", kKvHeads);
    gguf.addUint32("gemma3.attention.key_length", kHeadDim);
    gguf.addUint32("gemma3.attention.value_length", kHeadDim);
    gguf.addUint32("gemma3.attention.sliding_window", 4);
    gguf.addFloat32("gemma3.rope.freq_base", 1e6f);
    gguf.addString("gemma3.rope.scaling.type", "linear");
    gguf.addFloat32("gemma3.rope.scaling.factor", 8.0f);
    gguf.addFloat32("gemma3.attention.layer_norm_rms_epsilon", 1e-6f);
    converted.addEmbeddingsAndHead(false, 1.0f);
    for (int l = 0; l < kLayers; ++l) {
        converted.addLayer(l,
                           {{"attn_norm", "input_layernorm"},
                            {"attn_q_norm", "self_attn.q_norm"},
                            {"attn_k_norm", "self_attn.k_norm"},
                            {"post_attention_norm", "post_attention_layernorm"},
                            {"ffn_norm", "pre_feedforward_layernorm"},
                            {"post_ffw_norm", "post_feedforward_layernorm"}},
                           1.0f);
        converted.addLayer(l, {{"attn_q", "self_attn.q_proj"},
                               {"attn_k", "self_attn.k_proj"},
                               {"attn_v", "self_attn.v_proj"},
                               {"attn_output", "self_attn.o_proj"}});
        converted.addLayer(l, test::kGatedMlpTensors);
    }
    converted.write(file);
}

TEST(GgufGemma3, ComputesAsTheFolderDoesWithLlamaCppsQueryScale) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "gemma3-random-tiny";
    const test::TempDir dir;
    writeGemma3(folder, dir.path() / "gemma3.gguf");
    std::filesystem::create_directory(dir.path() / "oracle");
    std::filesystem::create_symlink(folder / "model.safetensors",
                                    dir.path() / "oracle" / "model.safetensors");
    nlohmann::json config = nlohmann::json::parse(std::ifstream(folder / "config.json"));
    config["query_pre_attn_scalar"] = kHeadDim;
    std::ofstream(dir.path() / "oracle" / "config.json") << config.dump();

    auto gguf = Model::open(dir.path() / "gemma3.gguf");
    auto oracle = Model::open(dir.path() / "oracle");
    EXPECT_EQ(gguf->architecture().family, oracle->architecture().family);
    for (int l = 0; l < kLayers; ++l) {
        EXPECT_EQ(gguf->architecture().windowOf(l), oracle->architecture().windowOf(l)) << l;
        EXPECT_EQ(gguf->architecture().rotaryOf(l)->describe(),
                  oracle->architecture().rotaryOf(l)->describe())
            << l;
    }
    auto backend = createCpuBackend();
    ForwardPass ours(*gguf, *backend), theirs(*oracle, *backend);
    for (const auto& sentence : test::loadReference(folder / "hf_reference.json").sentences) {
        ForwardRequest request;
        request.ids = sentence.ids;
        const ForwardResult a = ours.run(request), b = theirs.run(request);
        for (int l = 0; l < kLayers; ++l)
            for (int h = 0; h < kHeads; ++h)
                EXPECT_LE((a.trace.probabilities(l, h) - b.trace.probabilities(l, h))
                              .cwiseAbs()
                              .maxCoeff(),
                          kAttentionTolerance)
                    << sentence.text << " layer " << l << " head " << h;
        EXPECT_LE((a.logits - b.logits).cwiseAbs().maxCoeff(), kLogitTolerance) << sentence.text;
    }
}

// llama.cpp's query scale: d_model / heads for the 27B models, which it knows by their layer
// count (46 of Gemma 2, 62 of Gemma 3), else the key length.
TEST(GgufGemma3, The27BModelsScaleQueriesByDModelOverHeads) {
    auto scalar = [](const char* arch, int layers) {
        const test::TempDir dir;
        GgufWriter gguf;
        const std::string a = arch;
        gguf.addString("general.architecture", a);
        gguf.addUint32(a + ".block_count", layers);
        gguf.addUint32(a + ".embedding_length", 5376);
        gguf.addUint32(a + ".feed_forward_length", 8);
        gguf.addUint32(a + ".attention.head_count", 32);
        gguf.addUint32(a + ".attention.key_length", 128);
        gguf.addTensor("token_embd.weight", {5376, 1}, std::vector<float>(5376, 0.0f));
        gguf.write(dir.path() / "m.gguf");
        const auto config =
            nlohmann::json::parse(openGgufCheckpoint(dir.path() / "m.gguf").configJson);
        return config["query_pre_attn_scalar"].get<int>();
    };
    EXPECT_EQ(scalar("gemma3", 62), 168);  // 5376 / 32, as gemma-3-27b's config.json says
    EXPECT_EQ(scalar("gemma3", 34), 128);
    EXPECT_EQ(scalar("gemma2", 46), 168);
    EXPECT_EQ(scalar("gemma2", 42), 128);
}

}  // namespace
}  // namespace qkv
