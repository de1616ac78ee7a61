// The config.json files of today's popular models as the Hub writes them (tests/data/real-configs;
// Phi-4-mini's LongRoPE factor lists are placeholders of the Hub's length, 48), each opened with
// its full shapes: a safetensors file of zeros (bfloat16, MXFP4 for gpt-oss) whose data is a
// hole (no disk), then
// described and run on 4 tokens. What is checked is that the reader takes every key as
// transformers does: shapes, layer kinds, rotary scaling, QK-norm and the tensors it binds.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/model/forward.h"
#include "core/model/model_family.h"
#include "tests/real_configs/zero_checkpoint.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

using test::TensorShape;
using test::writeZeros;

// ModernBERT's masked-LM checkpoint: fused Wqkv and Wi, bias-free norms, no attn_norm in layer 0.
std::vector<TensorShape> modernBertTensors(const Architecture& c) {
    const std::int64_t d = c.dModel, ff = c.dFF;
    std::vector<TensorShape> t = {{"model.embeddings.tok_embeddings.weight", {c.vocabSize, d}},
                                  {"model.embeddings.norm.weight", {d}},
                                  {"model.final_norm.weight", {d}},
                                  {"head.dense.weight", {d, d}},
                                  {"head.norm.weight", {d}},
                                  {"decoder.bias", {c.vocabSize}}};
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        if (l > 0) t.push_back({p + "attn_norm.weight", {d}});
        t.push_back({p + "attn.Wqkv.weight", {3 * d, d}});
        t.push_back({p + "attn.Wo.weight", {d, d}});
        t.push_back({p + "mlp_norm.weight", {d}});
        t.push_back({p + "mlp.Wi.weight", {2 * ff, d}});
        t.push_back({p + "mlp.Wo.weight", {d, ff}});
    }
    return t;
}

// OPT-350m: narrow token embeddings with project_in/out, biases everywhere, post-LayerNorm
// layers and no final norm; positions have 2 extra rows.
std::vector<TensorShape> opt350Tensors(const Architecture& c, const std::string& prefix) {
    const std::int64_t d = c.dModel, ff = c.dFF, words = c.tokenWidth();
    std::vector<TensorShape> t = {{prefix + "embed_tokens.weight", {c.vocabSize, words}},
                                  {prefix + "embed_positions.weight", {c.contextLength + 2, d}},
                                  {prefix + "project_in.weight", {d, words}},
                                  {prefix + "project_out.weight", {words, d}}};
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = prefix + "layers." + std::to_string(l) + ".";
        for (const char* linear : {"q_proj", "k_proj", "v_proj", "out_proj"}) {
            t.push_back({p + "self_attn." + linear + ".weight", {d, d}});
            t.push_back({p + "self_attn." + linear + ".bias", {d}});
        }
        t.push_back({p + "fc1.weight", {ff, d}});
        t.push_back({p + "fc1.bias", {ff}});
        t.push_back({p + "fc2.weight", {d, ff}});
        t.push_back({p + "fc2.bias", {d}});
        for (const char* norm : {"self_attn_layer_norm", "final_layer_norm"}) {
            t.push_back({p + norm + ".weight", {d}});
            t.push_back({p + norm + ".bias", {d}});
        }
    }
    return t;
}

// A mixture-of-experts layer's router and experts: Mixtral's block_sparse_moe with w1 (gate),
// w3 (up), w2 (down); Qwen3-MoE's mlp with gate_proj, up_proj, down_proj.
template <typename Add>
void addExperts(const Architecture& c, const Add& add) {
    const bool mixtral = c.modelType == "mixtral";
    const std::string p = mixtral ? "block_sparse_moe." : "mlp.";
    const std::int64_t d = c.dModel, width = c.moe.width;
    add(p + "gate.weight", {c.moe.experts, d});
    for (int e = 0; e < c.moe.experts; ++e) {
        const std::string expert = p + "experts." + std::to_string(e) + ".";
        add(expert + (mixtral ? "w1" : "gate_proj") + ".weight", {width, d});
        add(expert + (mixtral ? "w3" : "up_proj") + ".weight", {width, d});
        add(expert + (mixtral ? "w2" : "down_proj") + ".weight", {d, width});
    }
}

// DeepSeek: latent attention (q_proj without a query rank), dense first layers, then routed
// experts beside shared ones (V3's router also has a choice bias).
std::vector<TensorShape> deepseekTensors(const Architecture& c, const std::string& prefix) {
    const std::int64_t d = c.dModel, heads = c.heads, rank = c.latent.keyValueRank;
    std::vector<TensorShape> t = {{prefix + "embed_tokens.weight", {c.vocabSize, d}},
                                  {prefix + "norm.weight", {d}},
                                  {"lm_head.weight", {c.vocabSize, d}}};
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = prefix + "layers." + std::to_string(l) + ".";
        auto add = [&](const std::string& name, std::vector<std::int64_t> shape) {
            t.push_back({p + name, std::move(shape)});
        };
        add("input_layernorm.weight", {d});
        add("post_attention_layernorm.weight", {d});
        if (c.latent.queryRank > 0) {
            add("self_attn.q_a_proj.weight", {c.latent.queryRank, d});
            add("self_attn.q_a_layernorm.weight", {c.latent.queryRank});
            add("self_attn.q_b_proj.weight", {heads * c.headDim, c.latent.queryRank});
        } else {
            add("self_attn.q_proj.weight", {heads * c.headDim, d});
        }
        add("self_attn.kv_a_proj_with_mqa.weight", {rank + c.latent.ropeDim, d});
        add("self_attn.kv_a_layernorm.weight", {rank});
        add("self_attn.kv_b_proj.weight", {heads * (c.latent.nopeDim + c.valueWidth()), rank});
        add("self_attn.o_proj.weight", {d, heads * c.valueWidth()});
        const bool experts = c.kindOf(l).experts;
        const std::int64_t width = experts ? c.moe.sharedWidth : c.dFF;
        const std::string mlp = experts ? "mlp.shared_experts." : "mlp.";
        add(mlp + "gate_proj.weight", {width, d});
        add(mlp + "up_proj.weight", {width, d});
        add(mlp + "down_proj.weight", {d, width});
        if (!experts) continue;
        addExperts(c, add);
        if (c.moe.router == Router::SigmoidTopK)
            add("mlp.gate.e_score_correction_bias", {c.moe.experts});
    }
    return t;
}

// gpt-oss as the Hub stores it: attention with biases and sinks in bf16, a router with a bias,
// experts in MXFP4 (blocks of 32 inputs per output row, one scale byte each) with bf16 biases.
std::vector<TensorShape> gptOssTensors(const Architecture& c, const std::string& prefix) {
    const std::int64_t d = c.dModel, q = std::int64_t{c.heads} * c.headDim,
                       kv = std::int64_t{c.kvHeads} * c.headDim, width = c.moe.width,
                       experts = c.moe.experts;
    std::vector<TensorShape> t = {{prefix + "embed_tokens.weight", {c.vocabSize, d}},
                                  {prefix + "norm.weight", {d}},
                                  {"lm_head.weight", {c.vocabSize, d}}};
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = prefix + "layers." + std::to_string(l) + ".";
        auto add = [&](const std::string& name, std::vector<std::int64_t> shape,
                       const char* dtype = "BF16") {
            t.push_back({p + name, std::move(shape), dtype});
        };
        for (const auto& [name, rows, cols] :
             {std::tuple{"q_proj", q, d}, {"k_proj", kv, d}, {"v_proj", kv, d}, {"o_proj", d, q}}) {
            add(std::string("self_attn.") + name + ".weight", {rows, cols});
            add(std::string("self_attn.") + name + ".bias", {rows});
        }
        add("self_attn.sinks", {c.heads});
        add("input_layernorm.weight", {d});
        add("post_attention_layernorm.weight", {d});
        add("mlp.router.weight", {experts, d});
        add("mlp.router.bias", {experts});
        for (const auto& [name, out, in] :
             {std::tuple{"gate_up_proj", 2 * width, d}, {"down_proj", d, width}}) {
            const std::string e = std::string("mlp.experts.") + name;
            add(e + "_blocks", {experts, out, in / 32, 16}, "U8");
            add(e + "_scales", {experts, out, in / 32}, "U8");
            add(e + "_bias", {experts, out});
        }
    }
    return t;
}

// The tensors a Hub checkpoint of the family holds for its text model, under `prefix`.
std::vector<TensorShape> hubTensors(const Architecture& c, const std::string& prefix) {
    if (c.modelType == "modernbert") return modernBertTensors(c);
    if (c.modelType == "opt") return opt350Tensors(c, prefix);
    if (c.latent.present()) return deepseekTensors(c, prefix);
    if (c.modelType == "gpt_oss") return gptOssTensors(c, prefix);
    const std::int64_t d = c.dModel, q = std::int64_t{c.heads} * c.headDim,
                       kv = std::int64_t{c.kvHeads} * c.headDim, ff = c.dFF;
    const std::string& type = c.modelType;
    const bool gemma = type == "gemma3_text" || type == "gemma3";
    std::vector<TensorShape> t = {{prefix + "embed_tokens.weight", {c.vocabSize, d}},
                                  {prefix + "norm.weight", {d}}};
    if (!c.tiedEmbeddings) t.push_back({"lm_head.weight", {c.vocabSize, d}});
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = prefix + "layers." + std::to_string(l) + ".";
        auto add = [&](const std::string& name, std::vector<std::int64_t> shape) {
            t.push_back({p + name, std::move(shape)});
        };
        if (type == "phi3") {
            add("self_attn.qkv_proj.weight", {q + 2 * kv, d});
            add("mlp.gate_up_proj.weight", {2 * ff, d});
        } else {
            add("self_attn.q_proj.weight", {q, d});
            add("self_attn.k_proj.weight", {kv, d});
            add("self_attn.v_proj.weight", {kv, d});
        }
        add("self_attn.o_proj.weight", {d, q});
        if (c.attentionBias)
            for (const auto& [name, rows] :
                 {std::pair{"q", q}, std::pair{"k", kv}, std::pair{"v", kv}})
                add(std::string("self_attn.") + name + "_proj.bias", {rows});
        if (c.attentionOutputBias) add("self_attn.o_proj.bias", {d});
        if (c.kindOf(l).experts) {
            addExperts(c, add);
        } else if (type != "phi3") {
            add("mlp.gate_proj.weight", {ff, d});
            add("mlp.up_proj.weight", {ff, d});
        }
        if (!c.kindOf(l).experts) add("mlp.down_proj.weight", {d, ff});
        if (type == "olmo2" || type == "olmo3") {
            add("self_attn.q_norm.weight", {q});
            add("self_attn.k_norm.weight", {kv});
            add("post_attention_layernorm.weight", {d});
            add("post_feedforward_layernorm.weight", {d});
            continue;
        }
        add("input_layernorm.weight", {d});
        add("post_attention_layernorm.weight", {d});
        if (type == "qwen3" || type == "qwen3_moe" || gemma) {
            add("self_attn.q_norm.weight", {c.headDim});
            add("self_attn.k_norm.weight", {c.headDim});
        }
        if (gemma) {
            add("pre_feedforward_layernorm.weight", {d});
            add("post_feedforward_layernorm.weight", {d});
        }
    }
    return t;
}

struct Expected {
    const char* name;
    const char* prefix;  // of the text model's tensors
    int layers, heads, kvHeads, headDim;
    QkNorm qkNorm;
    RopeType rope;
    int rotaryDims;
    int localLayers;   // layers with a sliding window
    int noRopeLayers;  // layers without rotary: NoPE ones, or all with learned positions
    // A mixture of experts: experts, per token, each one's width, layers that have them.
    int experts = 0, perToken = 0, expertWidth = 0, expertLayers = 0;
    // Mixtral-8x7B's two experts per layer would stream 25 GB of zero pages: opened and
    // described, not run.
    bool runs = true;
};

void PrintTo(const Expected& e, std::ostream* out) { *out << e.name; }

class RealConfig : public testing::TestWithParam<Expected> {};

TEST_P(RealConfig, OpensDescribesAndRunsFourTokens) {
    const Expected& e = GetParam();
    test::TempDir dir;
    const Architecture c = test::realConfigIn(e.name, dir.path());
    EXPECT_EQ(c.layers, e.layers);
    EXPECT_EQ(c.heads, e.heads);
    EXPECT_EQ(c.kvHeads, e.kvHeads);
    EXPECT_EQ(c.headDim, e.headDim);
    EXPECT_EQ(c.qkNorm, e.qkNorm);
    EXPECT_EQ(c.rotary.scaling.type, e.rope);
    EXPECT_EQ(c.rotary.dims, e.rotaryDims);
    int local = 0, noRope = 0;
    for (int l = 0; l < c.layers; ++l) {
        local += c.windowOf(l) > 0;
        noRope += c.rotaryOf(l) == nullptr;
    }
    EXPECT_EQ(local, e.localLayers);
    EXPECT_EQ(noRope, e.noRopeLayers);
    int expertLayers = 0;
    for (int l = 0; l < c.layers; ++l) expertLayers += c.kindOf(l).experts;
    EXPECT_EQ(expertLayers, e.expertLayers);
    EXPECT_EQ(c.moe.experts, e.experts);
    EXPECT_EQ(c.moe.perToken, e.perToken);
    EXPECT_EQ(c.moe.width, e.expertWidth);

    writeZeros(dir.path() / "model.safetensors", hubTensors(c, e.prefix));
    const auto model = Model::open(dir.path());
    if (!e.runs) return;
    auto backend = createCpuBackend();
    ForwardPass pass(*model, *backend);
    ForwardRequest request;
    request.ids = {1, 2, 3, 4};
    request.capture.layer = c.layers - 1;  // one layer's heads: the forward runs every layer
    const ForwardResult result = pass.run(request);
    ASSERT_EQ(result.trace.layerCount(), c.layers);
    // Zero weights give zero scores: every allowed key weighs the same (4 of them: the fourth
    // token's in a causal model, every token's in ModernBERT's global last layer).
    EXPECT_FLOAT_EQ(result.trace.probabilities(c.layers - 1, 0)(3, 0), 0.25f);
    EXPECT_EQ(result.logits.cols(), c.vocabSize);
}

INSTANTIATE_TEST_SUITE_P(
    HubModels, RealConfig,
    testing::Values(Expected{"Llama-3.2-1B", "model.", 16, 32, 8, 64, QkNorm::None,
                             RopeType::Llama3, 64, 0, 0},
                    Expected{"Qwen3-0.6B", "model.", 28, 16, 8, 128, QkNorm::PerHead,
                             RopeType::Default, 128, 0, 0},
                    Expected{"gemma-3-1b-it", "model.", 26, 4, 1, 256, QkNorm::PerHead,
                             RopeType::Default, 256, 22, 0},
                    Expected{"gemma-3-4b-it", "language_model.model.", 34, 8, 4, 256,
                             QkNorm::PerHead, RopeType::Linear, 256, 29, 0},
                    Expected{"OLMo-2-1124-7B", "model.", 32, 32, 32, 128, QkNorm::Whole,
                             RopeType::Default, 128, 0, 0},
                    Expected{"Phi-4-mini-instruct", "model.", 32, 24, 8, 128, QkNorm::None,
                             RopeType::LongRope, 96, 32, 0},
                    Expected{"SmolLM3-3B", "model.", 36, 16, 4, 128, QkNorm::None,
                             RopeType::Default, 128, 0, 9},
                    Expected{"ModernBERT-base", "model.", 22, 12, 12, 64, QkNorm::None,
                             RopeType::Default, 64, 14, 0},
                    Expected{"opt-350m", "model.decoder.", 24, 16, 16, 64, QkNorm::None,
                             RopeType::Default, 0, 0, 24},
                    Expected{"Qwen3-30B-A3B", "model.", 48, 32, 4, 128, QkNorm::PerHead,
                             RopeType::Default, 128, 0, 0, 128, 8, 768, 48},
                    Expected{"Mixtral-8x7B-v0.1", "model.", 32, 32, 8, 128, QkNorm::None,
                             RopeType::Default, 128, 0, 0, 8, 2, 14336, 32, false},
                    // q/k/v biases, none on o; 36B, opened and described.
                    Expected{"Seed-OSS-36B-Instruct", "model.", 64, 80, 8, 128, QkNorm::None,
                             RopeType::Default, 128, 0, 0, 0, 0, 0, 0, false},
                    // Rotary on interleaved pairs; tied embeddings.
                    Expected{"ERNIE-4.5-0.3B-PT", "model.", 18, 16, 2, 128, QkNorm::None,
                             RopeType::Default, 128, 0, 0},
                    // rope_scaling (YaRN) on the 8 full layers only; 24 sliding layers.
                    Expected{"Olmo-3-1025-7B", "model.", 32, 32, 32, 128, QkNorm::Whole,
                             RopeType::Yarn, 128, 24, 0, 0, 0, 0, 0, false},
                    // Latent attention: heads of 128 + 64 rotary dims.
                    Expected{"DeepSeek-V2-Lite", "model.", 27, 16, 16, 192, QkNorm::None,
                             RopeType::Yarn, 64, 0, 0, 64, 6, 1408, 26}),
    test::RealConfigName());

// gpt-oss-20b as the Hub stores it, MXFP4 experts included: alternating sliding and full layers,
// YaRN, 32 experts of 2880 routed 4 per token, attention sinks. It runs 4 tokens from zero pages:
// the routed experts' blocks are decoded where they are mapped (the zero router logits tie, so
// every token takes the same 4 experts per layer: about 1.2 GB of the 12 GB of experts is read).
TEST(RealConfigGptOss, Mxfp4OpensDescribesAndRunsFourTokens) {
    test::TempDir dir;
    std::filesystem::copy_file(test::testDataDir() / "real-configs" / "gpt-oss-20b.json",
                               dir.path() / "config.json");
    const Architecture c = loadArchitecture(dir.path() / "config.json");
    EXPECT_EQ(c.layers, 24);
    EXPECT_EQ(c.heads, 64);
    EXPECT_EQ(c.kvHeads, 8);
    EXPECT_EQ(c.headDim, 64);
    EXPECT_EQ(c.rotary.scaling.type, RopeType::Yarn);
    EXPECT_FALSE(c.rotary.scaling.truncate);
    int local = 0;
    for (int l = 0; l < c.layers; ++l) local += c.windowOf(l) == 128;
    EXPECT_EQ(local, 12);
    EXPECT_EQ(c.windowOf(0), 128);  // sliding first
    EXPECT_EQ(c.windowOf(1), 0);
    EXPECT_EQ(c.expertLayers(), 24);
    EXPECT_EQ(c.moe.experts, 32);
    EXPECT_EQ(c.moe.perToken, 4);
    EXPECT_EQ(c.moe.width, 2880);
    EXPECT_EQ(c.moe.router, Router::TopKSoftmax);
    EXPECT_TRUE(c.attentionSinks);
    EXPECT_EQ(c.vocabSize, 201088);

    writeZeros(dir.path() / "model.safetensors", gptOssTensors(c, "model."));
    const auto model = Model::open(dir.path());
    // 20.9B parameters: each MXFP4 element counts once (not as half a byte).
    EXPECT_NEAR(static_cast<double>(model->parameterCount()), 20.9e9, 0.1e9);
    auto backend = createCpuBackend();
    ForwardPass pass(*model, *backend);
    ForwardRequest request;
    request.ids = {1, 2, 3, 4};
    request.capture.layer = c.layers - 1;  // a full-attention layer
    const ForwardResult result = pass.run(request);
    ASSERT_EQ(result.trace.layerCount(), c.layers);
    // Zero scores and a zero sink logit: the fourth token's 4 keys and the sink weigh the same.
    EXPECT_FLOAT_EQ(result.trace.probabilities(c.layers - 1, 0)(3, 0), 0.2f);
    EXPECT_EQ(result.logits.cols(), c.vocabSize);
}

// DeepSeek-V3 as the Hub stores it, FP8 weights in 128 x 128 blocks: latent attention (query
// rank 1536, latent 512, heads of 128 + 64 rotary dims, values 128), YaRN whose mscale_all_dim
// squares into the softmax scale, 3 dense layers then 256 experts of 2048 routed 8 per token
// within 4 of 8 groups, weights × 2.5, one shared expert. (671B parameters: not run; the FP8
// decoding is checked on the shared FP8 references.)
TEST(RealConfigDeepSeekV3, Fp8OpensAndIsDescribed) {
    const Architecture c =
        loadArchitecture(test::testDataDir() / "real-configs" / "DeepSeek-V3.json");
    EXPECT_EQ(c.quantisation, "fp8");
    EXPECT_EQ(c.layers, 61);
    EXPECT_EQ(c.heads, 128);
    EXPECT_EQ(c.headDim, 192);
    EXPECT_EQ(c.valueWidth(), 128);
    EXPECT_EQ(c.latent.queryRank, 1536);
    EXPECT_EQ(c.latent.keyValueRank, 512);
    EXPECT_EQ(c.latent.ropeDim, 64);
    EXPECT_TRUE(c.latent.interleavedRope);
    EXPECT_EQ(c.rotary.dims, 64);
    EXPECT_EQ(c.rotary.scaling.type, RopeType::Yarn);
    const double mscale = 0.1 * 1.0 * std::log(40.0) + 1.0;
    EXPECT_NEAR(c.attentionScale, mscale * mscale / std::sqrt(192.0), 1e-6);
    EXPECT_EQ(c.expertLayers(), 58);
    EXPECT_FALSE(c.kindOf(2).experts);
    EXPECT_TRUE(c.kindOf(3).experts);
    EXPECT_EQ(c.moe.experts, 256);
    EXPECT_EQ(c.moe.perToken, 8);
    EXPECT_EQ(c.moe.width, 2048);
    EXPECT_EQ(c.moe.router, Router::SigmoidTopK);
    EXPECT_EQ(c.moe.groups, 8);
    EXPECT_EQ(c.moe.groupsKept, 4);
    EXPECT_FLOAT_EQ(c.moe.scale, 2.5f);
    EXPECT_EQ(c.moe.sharedWidth, 2048);
    EXPECT_EQ(c.vocabSize, 129280);
}

// DeepSeek-V3.2 as the Hub stores it (the config transformers keeps beside its deepseek_v32
// model): DeepSeek-V3's network and FP8 layout, and in every layer a lightning indexer of 64
// heads of 128 (rotated by halves on their first 64 dims) keeping each query's best 2,048 keys.
TEST(RealConfigDeepSeekV32, Fp8SparseAttentionOpensAndIsDescribed) {
    const Architecture c =
        loadArchitecture(test::testDataDir() / "real-configs" / "DeepSeek-V3.2.json");
    EXPECT_EQ(c.quantisation, "fp8");
    EXPECT_EQ(c.layers, 61);
    EXPECT_EQ(c.heads, 128);
    EXPECT_EQ(c.headDim, 192);
    EXPECT_EQ(c.latent.queryRank, 1536);
    EXPECT_EQ(c.keyIndexer.heads, 64);
    EXPECT_EQ(c.keyIndexer.headDim, 128);
    EXPECT_EQ(c.keyIndexer.topK, 2048);
    EXPECT_FALSE(c.keyIndexer.interleavedRope);
    EXPECT_EQ(c.expertLayers(), 58);
    EXPECT_EQ(c.moe.experts, 256);
    for (int l = 0; l < c.layers; ++l) {
        ASSERT_EQ(c.kindName(l), "attention_sparse") << l;
        ASSERT_FALSE(c.kindOf(l).reusesKeys) << l;
    }
    EXPECT_NE(c.describeLayer(0).find("its indexer's top 2048 keys per query"), std::string::npos)
        << c.describeLayer(0);
}

}  // namespace
}  // namespace qkv
