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

TEST(GgufOlmo2, ComputesAsTransformersDoes) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "olmo2-random-tiny";
    constexpr int kLayers = 2;  // its config.json: d_model 64, 4 heads of 16, 2 key/value heads
    test::GgufFromFolder converted(folder);
    test::GgufWriter& gguf = converted.gguf();
    gguf.addString("general.architecture", "olmo2");
    gguf.addUint32("olmo2.block_count", kLayers);
    gguf.addUint32("olmo2.context_length", 128);
    gguf.addUint32("olmo2.embedding_length", 64);
    gguf.addUint32("olmo2.feed_forward_length", 128);
    gguf.addUint32("olmo2.attention.head_count", 4);
    gguf.addUint32("olmo2.attention.head_count_kv", 2);
    gguf.addFloat32("olmo2.rope.freq_base", 500000.0f);
    gguf.addFloat32("olmo2.attention.layer_norm_rms_epsilon", 1e-6f);
    converted.add("token_embd.weight", "model.embed_tokens.weight");
    converted.add("output_norm.weight", "model.norm.weight");
    converted.add("output.weight", "lm_head.weight");
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
    test::GgufWriter& gguf = converted.gguf();
    gguf.addString("general.architecture", "smollm3");
    gguf.addUint32("smollm3.block_count", kLayers);
    gguf.addUint32("smollm3.context_length", 128);
    gguf.addUint32("smollm3.embedding_length", 64);
    gguf.addUint32("smollm3.feed_forward_length", 128);
    gguf.addUint32("smollm3.attention.head_count", 4);
    gguf.addUint32("smollm3.attention.head_count_kv", 2);
    gguf.addFloat32("smollm3.rope.freq_base", 2e6f);
    gguf.addFloat32("smollm3.attention.layer_norm_rms_epsilon", 1e-6f);
    converted.add("token_embd.weight", "model.embed_tokens.weight");
    converted.add("output_norm.weight", "model.norm.weight");
    for (int l = 0; l < kLayers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        const std::string hf = "model.layers." + std::to_string(l) + ".";
        converted.add(blk + "attn_q.weight", hf + "self_attn.q_proj.weight", 4);
        converted.add(blk + "attn_k.weight", hf + "self_attn.k_proj.weight", 2);
        for (const auto& [ours, theirs] : {std::pair{"attn_v", "self_attn.v_proj"},
                                           {"attn_output", "self_attn.o_proj"},
                                           {"attn_norm", "input_layernorm"},
                                           {"ffn_norm", "post_attention_layernorm"},
                                           {"ffn_gate", "mlp.gate_proj"},
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
    test::GgufWriter& gguf = converted.gguf();
    gguf.addString("general.architecture", "qwen3moe");
    gguf.addUint32("qwen3moe.block_count", kLayers);
    gguf.addUint32("qwen3moe.context_length", 128);
    gguf.addUint32("qwen3moe.embedding_length", 64);
    gguf.addUint32("qwen3moe.feed_forward_length", 128);
    gguf.addUint32("qwen3moe.attention.head_count", 4);
    gguf.addUint32("qwen3moe.attention.head_count_kv", 2);
    gguf.addUint32("qwen3moe.attention.key_length", 16);
    gguf.addUint32("qwen3moe.expert_count", kExperts);
    gguf.addUint32("qwen3moe.expert_used_count", 2);
    gguf.addUint32("qwen3moe.expert_feed_forward_length", 32);
    gguf.addFloat32("qwen3moe.rope.freq_base", 1e6f);
    gguf.addFloat32("qwen3moe.attention.layer_norm_rms_epsilon", 1e-6f);
    converted.add("token_embd.weight", "model.embed_tokens.weight");
    converted.add("output_norm.weight", "model.norm.weight");
    converted.add("output.weight", "lm_head.weight");
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
        for (const char* projection : {"gate", "up", "down"}) {
            std::vector<std::string> experts;
            for (int e = 0; e < kExperts; ++e)
                experts.push_back(hf + "mlp.experts." + std::to_string(e) + "." + projection +
                                  "_proj.weight");
            converted.addStacked(blk + "ffn_" + projection + "_exps.weight", experts);
        }
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
    test::GgufWriter& gguf = converted.gguf();
    gguf.addString("general.architecture", "llama");
    gguf.addUint32("llama.block_count", kLayers);
    gguf.addUint32("llama.context_length", 128);
    gguf.addUint32("llama.embedding_length", 64);
    gguf.addUint32("llama.feed_forward_length", 96);
    gguf.addUint32("llama.attention.head_count", 4);
    gguf.addUint32("llama.attention.head_count_kv", 2);
    gguf.addUint32("llama.expert_count", kExperts);
    gguf.addUint32("llama.expert_used_count", 2);
    gguf.addFloat32("llama.rope.freq_base", 1e6f);
    gguf.addFloat32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
    converted.add("token_embd.weight", "model.embed_tokens.weight");
    converted.add("output_norm.weight", "model.norm.weight");
    converted.add("output.weight", "lm_head.weight");
    for (int l = 0; l < kLayers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        const std::string hf = "model.layers." + std::to_string(l) + ".";
        converted.add(blk + "attn_q.weight", hf + "self_attn.q_proj.weight", 4);
        converted.add(blk + "attn_k.weight", hf + "self_attn.k_proj.weight", 2);
        for (const auto& [ours, theirs] : {std::pair{"attn_v", "self_attn.v_proj"},
                                           {"attn_output", "self_attn.o_proj"},
                                           {"attn_norm", "input_layernorm"},
                                           {"ffn_norm", "post_attention_layernorm"},
                                           {"ffn_gate_inp", "block_sparse_moe.gate"}})
            converted.add(blk + ours + ".weight", hf + theirs + ".weight");
        for (const auto& [projection, w] :
             {std::pair{"gate", "w1"}, {"up", "w3"}, {"down", "w2"}}) {
            std::vector<std::string> experts;
            for (int e = 0; e < kExperts; ++e)
                experts.push_back(hf + "block_sparse_moe.experts." + std::to_string(e) + "." + w +
                                  ".weight");
            converted.addStacked(blk + "ffn_" + projection + "_exps.weight", experts);
        }
    }
    const test::TempDir dir;
    converted.write(dir.path() / "mixtral.gguf");
    expectTransformersResults(dir.path() / "mixtral.gguf", folder, "mixtral");
}

}  // namespace
}  // namespace qkv
