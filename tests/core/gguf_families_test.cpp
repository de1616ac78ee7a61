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
//            the experts stacked as Qwen3-MoE's, under Mixtral's names (w1 gate, w3 up, w2 down).
#include <gtest/gtest.h>

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

// Layer `l`'s attention and its two norms as Llama's converter writes them (the shared models'
// 4 query heads and 2 key/value heads): W_Q's and W_K's rows interleaved per head.
void addLlamaAttention(test::GgufFromFolder& converted, int l) {
    const std::string blk = "blk." + std::to_string(l) + ".";
    const std::string hf = "model.layers." + std::to_string(l) + ".";
    converted.add(blk + "attn_q.weight", hf + "self_attn.q_proj.weight", 4);
    converted.add(blk + "attn_k.weight", hf + "self_attn.k_proj.weight", 2);
    for (const auto& [ours, theirs] : {std::pair{"attn_v", "self_attn.v_proj"},
                                       {"attn_output", "self_attn.o_proj"},
                                       {"attn_norm", "input_layernorm"},
                                       {"ffn_norm", "post_attention_layernorm"}})
        converted.add(blk + ours + ".weight", hf + theirs + ".weight");
}

TEST(GgufOlmo2, ComputesAsTransformersDoes) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "olmo2-random-tiny";
    constexpr int kLayers = 2;  // its config.json: d_model 64, 4 heads of 16, 2 key/value heads
    test::GgufFromFolder converted(folder);
    converted.describe({.arch = "olmo2", .layers = kLayers, .ropeBase = 500000.0f});
    converted.addEmbeddingsAndHead(true);
    for (int l = 0; l < kLayers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        const std::string hf = "model.layers." + std::to_string(l) + ".";
        for (const auto& [ours, theirs] : {std::pair{"attn_q", "self_attn.q_proj"},
                                           {"attn_k", "self_attn.k_proj"},
                                           {"attn_v", "self_attn.v_proj"},
                                           {"attn_output", "self_attn.o_proj"},
                                           {"attn_q_norm", "self_attn.q_norm"},
                                           {"attn_k_norm", "self_attn.k_norm"},
                                           {"post_attention_norm", "post_attention_layernorm"},
                                           {"post_ffw_norm", "post_feedforward_layernorm"},
                                           {"ffn_gate", "mlp.gate_proj"},
                                           {"ffn_up", "mlp.up_proj"},
                                           {"ffn_down", "mlp.down_proj"}})
            converted.add(blk + ours + ".weight", hf + theirs + ".weight");
    }
    const test::TempDir dir;
    converted.write(dir.path() / "olmo2.gguf");

    expectTransformersResults(dir.path() / "olmo2.gguf", folder, "olmo2");
}

TEST(GgufSmolLM3, ComputesAsTransformersDoes) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "smollm3-random-tiny";
    constexpr int kLayers = 4;  // its config.json: d_model 64, 4 heads of 16, 2 key/value heads
    test::GgufFromFolder converted(folder);
    converted.describe({.arch = "smollm3", .layers = kLayers, .ropeBase = 2e6f});
    converted.addEmbeddingsAndHead(false);
    for (int l = 0; l < kLayers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        const std::string hf = "model.layers." + std::to_string(l) + ".";
        addLlamaAttention(converted, l);
        for (const auto& [ours, theirs] : {std::pair{"ffn_gate", "mlp.gate_proj"},
                                           {"ffn_up", "mlp.up_proj"},
                                           {"ffn_down", "mlp.down_proj"}})
            converted.add(blk + ours + ".weight", hf + theirs + ".weight");
    }
    const test::TempDir dir;
    converted.write(dir.path() / "smollm3.gguf");
    expectTransformersResults(dir.path() / "smollm3.gguf", folder, "smollm3");
}

TEST(GgufQwen3Moe, ComputesAsTransformersDoes) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "qwen3_moe-random-tiny";
    // Its config.json: 2 layers, d_model 64, 4 heads of 16, 2 key/value heads, 8 experts of
    // width 32, 2 per token, norm_topk_prob.
    constexpr int kLayers = 2, kExperts = 8;
    test::GgufFromFolder converted(folder);
    converted.describe({.arch = "qwen3moe", .layers = kLayers, .ropeBase = 1e6f});
    test::GgufWriter& gguf = converted.gguf();
    gguf.addUint32("qwen3moe.attention.key_length", 16);
    gguf.addUint32("qwen3moe.expert_count", kExperts);
    gguf.addUint32("qwen3moe.expert_used_count", 2);
    gguf.addUint32("qwen3moe.expert_feed_forward_length", 32);
    converted.addEmbeddingsAndHead(true);
    for (int l = 0; l < kLayers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        const std::string hf = "model.layers." + std::to_string(l) + ".";
        for (const auto& [ours, theirs] : {std::pair{"attn_q", "self_attn.q_proj"},
                                           {"attn_k", "self_attn.k_proj"},
                                           {"attn_v", "self_attn.v_proj"},
                                           {"attn_output", "self_attn.o_proj"},
                                           {"attn_q_norm", "self_attn.q_norm"},
                                           {"attn_k_norm", "self_attn.k_norm"},
                                           {"attn_norm", "input_layernorm"},
                                           {"ffn_norm", "post_attention_layernorm"},
                                           {"ffn_gate_inp", "mlp.gate"}})
            converted.add(blk + ours + ".weight", hf + theirs + ".weight");
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
    test::GgufWriter& gguf = converted.gguf();
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

}  // namespace
}  // namespace qkv
