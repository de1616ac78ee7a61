// GGUF files of the families whose shared reference model can be written as llama.cpp's converter
// writes it, and then must compute every head and the logits as transformers does:
//   olmo2    no row reordering (llama.cpp turns OLMo 2's rotary halves as transformers does),
//            RMSNorm over the whole q and k projections (attn_q_norm, attn_k_norm), norms after
//            attention and the MLP only (post_attention_norm, post_ffw_norm);
//   smollm3  Llama's converter (W_Q and W_K rows interleaved per head, tied output), and every
//            fourth layer without rotary, which llama.cpp fixes and the file does not say;
//   qwen3moe each layer's experts stacked in one tensor per projection (ffn_gate_exps, ...), the
//            router as ffn_gate_inp, top-k weights renormalised (llama.cpp always does);
//   mixtral  architecture "llama" with expert_count: Llama's interleaved W_Q and W_K rows, and
//            the experts stacked as Qwen3-MoE's, under Mixtral's names (w1 gate, w3 up, w2 down);
//   deepseek2 DeepSeek-V3's latent attention framed as one shared key head (head_count_kv 1,
//            key_length kv_lora_rank + rotary, the heads' widths as key_length_mla and
//            value_length_mla), kv_b_proj split into a transposed attn_k_b and attn_v_b (or
//            whole, as attn_kv_b, in files converted before the split), the router's sigmoid as
//            expert_gating_func 2 with its bias as exp_probs_b, and shared experts (_shexp).
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/analysis/head_metrics.h"
#include "core/io/gguf_writer.h"
#include "core/model/applicable_configurations.h"
#include "core/model/forward.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/gguf_from_folder.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

// As ForwardReference on the folder: float32 against transformers' float64 reference.
constexpr double kAttentionTolerance = 1e-4;
constexpr double kLogitTolerance = 5e-4;

void expectTransformersResults(const std::filesystem::path& file,
                               const std::filesystem::path& folder, const std::string& family) {
    auto model = Model::open(file);
    EXPECT_EQ(model->architecture().family, family);
    test::expectOriginalResults(*model, test::loadReference(folder / "hf_reference.json"),
                                kAttentionTolerance, kLogitTolerance);
}

// Attention with QK-norm (OLMo 2, Qwen3), stored as transformers stores it.
const test::LayerTensorNames kQkNormAttention = {
    {"attn_q", "self_attn.q_proj"},      {"attn_k", "self_attn.k_proj"},
    {"attn_v", "self_attn.v_proj"},      {"attn_output", "self_attn.o_proj"},
    {"attn_q_norm", "self_attn.q_norm"}, {"attn_k_norm", "self_attn.k_norm"}};

// Layer `l`'s attention and its two norms as Llama's converter writes them (the shared models'
// 4 query heads and 2 key/value heads): W_Q's and W_K's rows interleaved per head.
void addLlamaAttention(test::GgufFromFolder& converted, int l) {
    const std::string blk = "blk." + std::to_string(l) + ".";
    const std::string hf = "model.layers." + std::to_string(l) + ".";
    converted.add(blk + "attn_q.weight", hf + "self_attn.q_proj.weight", 4);
    converted.add(blk + "attn_k.weight", hf + "self_attn.k_proj.weight", 2);
    converted.addLayer(l, {{"attn_v", "self_attn.v_proj"},
                           {"attn_output", "self_attn.o_proj"},
                           {"attn_norm", "input_layernorm"},
                           {"ffn_norm", "post_attention_layernorm"}});
}

TEST(GgufOlmo2, ComputesAsTransformersDoes) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "olmo2-random-tiny";
    constexpr int kLayers = 2;  // its config.json: d_model 64, 4 heads of 16, 2 key/value heads
    test::GgufFromFolder converted(folder);
    converted.describe({.arch = "olmo2", .layers = kLayers, .ropeBase = 500000.0f});
    converted.addEmbeddingsAndHead(true);
    for (int l = 0; l < kLayers; ++l) {
        converted.addLayer(l, kQkNormAttention);
        converted.addLayer(l, {{"post_attention_norm", "post_attention_layernorm"},
                               {"post_ffw_norm", "post_feedforward_layernorm"}});
        converted.addLayer(l, test::kGatedMlpTensors);
    }
    const test::TempDir dir;
    converted.write(dir.path() / "olmo2.gguf");

    expectTransformersResults(dir.path() / "olmo2.gguf", folder, "olmo2");
}

// shared/models/smollm3-random-tiny as Llama's converter writes it. Its config.json: 4 layers,
// d_model 64, 4 heads of 16, 2 key/value heads.
void writeSmolLM3(const std::filesystem::path& folder, const std::filesystem::path& file) {
    constexpr int kLayers = 4;
    test::GgufFromFolder converted(folder);
    converted.describe({.arch = "smollm3", .layers = kLayers, .ropeBase = 2e6f});
    converted.addEmbeddingsAndHead(false);
    for (int l = 0; l < kLayers; ++l) {
        addLlamaAttention(converted, l);
        converted.addLayer(l, test::kGatedMlpTensors);
    }
    converted.write(file);
}

TEST(GgufSmolLM3, ComputesAsTransformersDoes) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "smollm3-random-tiny";
    const test::TempDir dir;
    writeSmolLM3(folder, dir.path() / "smollm3.gguf");
    expectTransformersResults(dir.path() / "smollm3.gguf", folder, "smollm3");
}

// Llama's W_Q and W_K rows stay in ggml's order in the file (nothing is copied at open): the
// products gather each head's columns back, and so does the weight analysis. Under every
// configuration (a key slot filled from W_V, values from W_Q, ...) the queries, keys and
// attention of the file are the folder's, and so is every head's and layer's weight metric.
TEST(GgufSmolLM3, QueriesKeysAndWeightMetricsAreTheFoldersUnderEveryConfiguration) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "smollm3-random-tiny";
    const test::TempDir dir;
    writeSmolLM3(folder, dir.path() / "smollm3.gguf");
    const auto file = Model::open(dir.path() / "smollm3.gguf");
    const auto reference = Model::open(folder);
    const Architecture& c = reference->architecture();
    auto cpu = createCpuBackend();
    for (const char* name : {"learned", "shared-qk", "tied-kv", "single-w", "q=K,k=V,v=Q"}) {
        SCOPED_TRACE(name);
        ForwardRequest request;
        request.ids = {1, 17, 401, 33, 902, 250, 77, 5};
        request.config = WConfiguration::parse(name);
        if (!configurationApplies(c, request.config)) continue;
        const ForwardResult a = ForwardPass(*file, *cpu).run(request);
        const ForwardResult b = ForwardPass(*reference, *cpu).run(request);
        // The same float32 weights and products: summation order at most.
        for (int l = 0; l < c.layers; ++l)
            for (int h = 0; h < c.heads; ++h) {
                EXPECT_LE((a.trace.query(l, h) - b.trace.query(l, h)).cwiseAbs().maxCoeff(), 1e-5f);
                EXPECT_LE((a.trace.key(l, h) - b.trace.key(l, h)).cwiseAbs().maxCoeff(), 1e-5f);
                EXPECT_LE((a.trace.value(l, h) - b.trace.value(l, h)).cwiseAbs().maxCoeff(), 1e-5f);
            }
        const ModelMetrics x = analyzeModel(*file, request.config);
        const ModelMetrics y = analyzeModel(*reference, request.config);
        // Identical float32 weights widened to double, in the same column order: the same
        // numbers but for LAPACK's and the GEMM's rounding.
        constexpr double kSame = 1e-9;
        for (int l = 0; l < c.layers; ++l) {
            EXPECT_NEAR(x.layers[l].wqkSymmetry, y.layers[l].wqkSymmetry, kSame);
            for (int h = 0; h < c.heads; ++h) {
                const HeadMetrics &p = x.layers[l].heads[h], &q = y.layers[l].heads[h];
                EXPECT_NEAR(p.wqkSymmetry, q.wqkSymmetry, kSame) << l << " " << h;
                EXPECT_NEAR(p.wqkDirectionality, q.wqkDirectionality, kSame);
                EXPECT_NEAR(p.eigenPositivity, q.eigenPositivity, kSame);
                EXPECT_NEAR(p.qkSimilarity, q.qkSimilarity, kSame);
                EXPECT_NEAR(p.qvSimilarity, q.qvSimilarity, kSame);
                EXPECT_NEAR(p.kvSimilarity, q.kvSimilarity, kSame);
                EXPECT_NEAR(p.wqkSingularValues.front(), q.wqkSingularValues.front(), kSame);
            }
        }
    }
}

TEST(GgufQwen3Moe, ComputesAsTransformersDoes) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "qwen3_moe-random-tiny";
    // Its config.json: 2 layers, d_model 64, 4 heads of 16, 2 key/value heads, 8 experts of
    // width 32, 2 per token, norm_topk_prob.
    constexpr int kLayers = 2, kExperts = 8;
    test::GgufFromFolder converted(folder);
    converted.describe({.arch = "qwen3moe", .layers = kLayers, .ropeBase = 1e6f});
    GgufWriter& gguf = converted.gguf();
    gguf.addUint32("qwen3moe.attention.key_length", 16);
    gguf.addUint32("qwen3moe.expert_count", kExperts);
    gguf.addUint32("qwen3moe.expert_used_count", 2);
    gguf.addUint32("qwen3moe.expert_feed_forward_length", 32);
    converted.addEmbeddingsAndHead(true);
    for (int l = 0; l < kLayers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        const std::string hf = "model.layers." + std::to_string(l) + ".";
        converted.addLayer(l, kQkNormAttention);
        converted.addLayer(l, {{"attn_norm", "input_layernorm"},
                               {"ffn_norm", "post_attention_layernorm"},
                               {"ffn_gate_inp", "mlp.gate"}});
        for (const std::string projection : {"gate", "up", "down"})
            converted.addExperts(blk + "ffn_" + projection + "_exps.weight", hf + "mlp.experts.",
                                 "." + projection + "_proj.weight", kExperts);
    }
    const test::TempDir dir;
    converted.write(dir.path() / "qwen3moe.gguf");
    expectTransformersResults(dir.path() / "qwen3moe.gguf", folder, "qwen3_moe");
}

TEST(GgufMixtral, ComputesAsTransformersDoes) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "mixtral-random-tiny";
    // Its config.json: 2 layers, d_model 64, 4 heads of 16, 2 key/value heads, 4 experts of
    // width 96, 2 per token.
    constexpr int kLayers = 2, kExperts = 4;
    test::GgufFromFolder converted(folder);
    converted.describe({.arch = "llama",
                        .layers = kLayers,
                        .feedForward = 96,
                        .ropeBase = 1e6f,
                        .normEps = 1e-5f});
    GgufWriter& gguf = converted.gguf();
    gguf.addUint32("llama.expert_count", kExperts);
    gguf.addUint32("llama.expert_used_count", 2);
    converted.addEmbeddingsAndHead(true);
    for (int l = 0; l < kLayers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        const std::string hf = "model.layers." + std::to_string(l) + ".";
        addLlamaAttention(converted, l);
        converted.add(blk + "ffn_gate_inp.weight", hf + "block_sparse_moe.gate.weight");
        for (const auto& [projection, w] : {std::pair{"gate", "w1"}, {"up", "w3"}, {"down", "w2"}})
            converted.addExperts(blk + "ffn_" + projection + "_exps.weight",
                                 hf + "block_sparse_moe.experts.", std::string(".") + w + ".weight",
                                 kExperts);
    }
    const test::TempDir dir;
    converted.write(dir.path() / "mixtral.gguf");
    expectTransformersResults(dir.path() / "mixtral.gguf", folder, "mixtral");
}

// shared/models/deepseek_v3-random-tiny as llama.cpp's DeepseekV2Model converter writes it. Its
// config.json: 3 layers (the first dense, 128 wide), d_model 64, 4 heads, q_lora_rank 32,
// kv_lora_rank 16, rotary 8 and nope 16 per key head, values 16 wide; 8 experts of width 32 in 4
// groups (2 kept), 2 per token, one shared expert, routed_scaling_factor 2.5, norm_topk_prob.
test::GgufFromFolder deepseekV3AsGguf(const std::filesystem::path& folder, bool splitKeyValue) {
    constexpr int kLayers = 3, kHeads = 4, kRank = 16, kRotary = 8, kNope = 16, kValue = 16;
    test::GgufFromFolder converted(folder);
    converted.describe({.arch = "deepseek2", .layers = kLayers, .heads = kHeads, .kvHeads = 1});
    GgufWriter& gguf = converted.gguf();
    const std::string a = "deepseek2.";
    gguf.addUint32(a + "rope.dimension_count", kRotary);
    gguf.addUint32(a + "attention.q_lora_rank", 32);
    gguf.addUint32(a + "attention.kv_lora_rank", kRank);
    if (splitKeyValue) {  // the converter's MQA framing, and the heads' own widths
        gguf.addUint32(a + "attention.key_length", kRank + kRotary);
        gguf.addUint32(a + "attention.value_length", kRank);
        gguf.addUint32(a + "attention.key_length_mla", kNope + kRotary);
        gguf.addUint32(a + "attention.value_length_mla", kValue);
    } else {
        gguf.addUint32(a + "attention.key_length", kNope + kRotary);
        gguf.addUint32(a + "attention.value_length", kValue);
    }
    gguf.addUint32(a + "leading_dense_block_count", 1);
    gguf.addUint32(a + "expert_feed_forward_length", 32);
    gguf.addUint32(a + "expert_count", 8);
    gguf.addUint32(a + "expert_used_count", 2);
    gguf.addUint32(a + "expert_shared_count", 1);
    gguf.addFloat32(a + "expert_weights_scale", 2.5f);
    gguf.addBool(a + "expert_weights_norm", true);
    gguf.addUint32(a + "expert_group_count", 4);
    gguf.addUint32(a + "expert_group_used_count", 2);
    gguf.addUint32(a + "expert_gating_func", 2);  // sigmoid
    converted.addEmbeddingsAndHead(true);
    for (int l = 0; l < kLayers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        const std::string hf = "model.layers." + std::to_string(l) + ".";
        converted.addLayer(l, {{"attn_norm", "input_layernorm"},
                               {"attn_q_a", "self_attn.q_a_proj"},
                               {"attn_q_a_norm", "self_attn.q_a_layernorm"},
                               {"attn_q_b", "self_attn.q_b_proj"},
                               {"attn_kv_a_mqa", "self_attn.kv_a_proj_with_mqa"},
                               {"attn_kv_a_norm", "self_attn.kv_a_layernorm"},
                               {"attn_output", "self_attn.o_proj"},
                               {"ffn_norm", "post_attention_layernorm"}});
        if (splitKeyValue)
            converted.addLatentKeyValueUp(blk, hf + "self_attn.kv_b_proj.weight", kHeads, kNope);
        else
            converted.add(blk + "attn_kv_b.weight", hf + "self_attn.kv_b_proj.weight");
        if (l == 0) {
            for (const std::string projection : {"gate", "up", "down"})
                converted.add(blk + "ffn_" + projection + ".weight",
                              hf + "mlp." + projection + "_proj.weight");
            continue;
        }
        converted.add(blk + "ffn_gate_inp.weight", hf + "mlp.gate.weight");
        converted.add(blk + "exp_probs_b.bias", hf + "mlp.gate.e_score_correction_bias");
        for (const std::string projection : {"gate", "up", "down"}) {
            converted.addExperts(blk + "ffn_" + projection + "_exps.weight", hf + "mlp.experts.",
                                 "." + projection + "_proj.weight", 8);
            converted.add(blk + "ffn_" + projection + "_shexp.weight",
                          hf + "mlp.shared_experts." + projection + "_proj.weight");
        }
    }
    return converted;
}

TEST(GgufDeepseek, ComputesAsTransformersDoes) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "deepseek_v3-random-tiny";
    const test::TempDir dir;
    deepseekV3AsGguf(folder, true).write(dir.path() / "deepseek.gguf");
    const auto model = Model::open(dir.path() / "deepseek.gguf");
    EXPECT_EQ(model->architecture().modelType, "deepseek_v3");
    EXPECT_EQ(model->architecture().latent.keyValueRank, 16);
    EXPECT_EQ(model->architecture().moe.router, Router::SigmoidTopK);
    expectTransformersResults(dir.path() / "deepseek.gguf", folder, "deepseek");
}

// Files converted before the split keep kv_b_proj whole (attn_kv_b) and the heads' widths as
// key_length and value_length.
TEST(GgufDeepseek, ReadsTheUnsplitKeyValueProjection) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "deepseek_v3-random-tiny";
    const test::TempDir dir;
    deepseekV3AsGguf(folder, false).write(dir.path() / "deepseek.gguf");
    expectTransformersResults(dir.path() / "deepseek.gguf", folder, "deepseek");
}

// DeepSeek's YaRN as the converter writes it: mscale_all_dim as yarn_log_multiplier =
// 0.1 · mscale_all_dim, mscale not at all. It opens as the config.json it came from (V2's and
// V3's set mscale = mscale_all_dim): the same rotation, softmax scale (× mscale²) and results.
TEST(GgufDeepseek, ReadsYarnsLogMultiplierAsMscaleAllDim) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "deepseek_v3-random-tiny";
    constexpr double kMscale = 0.707;  // DeepSeek-V2's
    test::GgufFromFolder converted = deepseekV3AsGguf(folder, true);
    GgufWriter& gguf = converted.gguf();
    gguf.addString("deepseek2.rope.scaling.type", "yarn");
    gguf.addFloat32("deepseek2.rope.scaling.factor", 4.0f);
    gguf.addUint32("deepseek2.rope.scaling.original_context_length", 32);
    gguf.addFloat32("deepseek2.rope.scaling.yarn_beta_fast", 32.0f);
    gguf.addFloat32("deepseek2.rope.scaling.yarn_beta_slow", 1.0f);
    gguf.addFloat32("deepseek2.rope.scaling.yarn_log_multiplier", 0.1 * kMscale);
    const test::TempDir dir;
    converted.write(dir.path() / "yarn.gguf");
    const auto yarnFolder =
        test::folderWithEditedConfig(folder, dir.path(), [&](nlohmann::json& config) {
            config["scoring_func"] = "sigmoid";
            config["rope_scaling"] = {{"type", "yarn"},
                                      {"factor", 4.0},
                                      {"beta_fast", 32.0},
                                      {"beta_slow", 1.0},
                                      {"mscale", kMscale},
                                      {"mscale_all_dim", kMscale},
                                      {"original_max_position_embeddings", 32}};
        });
    const auto file = Model::open(dir.path() / "yarn.gguf");
    const auto reference = Model::open(yarnFolder);
    EXPECT_EQ(file->architecture().rotary.describe(), reference->architecture().rotary.describe());
    // 0.1 · mscale_all_dim is stored in float32: the scale agrees to its rounding.
    EXPECT_NEAR(file->architecture().attentionScale, reference->architecture().attentionScale,
                1e-7);
    EXPECT_GT(file->architecture().attentionScale, 1.0f / std::sqrt(24.0f));  // × mscale² > 1
    // The same weights (kv_b_proj put back together exactly) and a scale that differs in its
    // last bits: float32 rounding apart.
    test::expectSameResults(*file, *reference, 1e-5f, 1e-4f);
}

TEST(GgufDeepseek, RefusesAKeyHalfWithoutItsValueHalf) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "deepseek_v3-random-tiny";
    test::GgufFromFolder converted = deepseekV3AsGguf(folder, true);
    converted.gguf().addTensor("blk.3.attn_k_b.weight", {16, 16, 4}, std::vector<float>(1024));
    const test::TempDir dir;
    converted.write(dir.path() / "deepseek.gguf");
    const std::string error = test::openingError(dir.path() / "deepseek.gguf");
    EXPECT_NE(error.find("without its value half (attn_v_b)"), std::string::npos) << error;
}

}  // namespace
}  // namespace qkv
