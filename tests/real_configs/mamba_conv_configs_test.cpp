// The Mamba-2 and short-convolution hybrids' Hub configs at their full shapes
// (tests/data/real-configs: the keys that decide the shapes, as the Hub's config.json files give
// them): Granite 4.0-H with and without experts, Nemotron-H, LFM2, Falcon-H1. Each opens from
// zero weights (holes, no disk) with the tensors the Hub files hold and is described; the small
// ones run 4 tokens.
#include <gtest/gtest.h>

#include <tuple>

#include "core/model/forward.h"
#include "core/model/model_family.h"
#include "tests/real_configs/zero_checkpoint.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

using test::TensorShape;

// A Mamba-2 mixer's tensors under `p` ("model.layers.N.mamba."), `m` its shape (besideAt or
// atLayer): in_proj [z | x | B | C | dt], conv1d over [x | B | C] with a bias, A_log, D,
// dt_bias, the gated norm's weight where the family has one, out_proj.
void addMamba2(const Architecture& m, int kernel, bool norm, const std::string& p,
               std::vector<TensorShape>& t) {
    const std::int64_t d = m.dModel, inner = std::int64_t{m.heads} * m.valueWidth(),
                       states = std::int64_t{m.kvHeads} * m.headDim, heads = m.heads;
    t.push_back({p + "in_proj.weight", {2 * inner + 2 * states + heads, d}});
    t.push_back({p + "conv1d.weight", {inner + 2 * states, 1, kernel}});
    t.push_back({p + "conv1d.bias", {inner + 2 * states}});
    for (const char* vector : {"A_log", "D", "dt_bias"}) t.push_back({p + vector, {heads}});
    if (norm) t.push_back({p + "norm.weight", {inner}});
    t.push_back({p + "out_proj.weight", {d, inner}});
}

// Granite 4.0-H: mamba.* or self_attn.* per layer, a shared SwiGLU with fused input_linear and,
// with experts, block_sparse_moe's fused experts; embeddings tied.
std::vector<TensorShape> graniteTensors(const Architecture& c) {
    const std::int64_t d = c.dModel, hd = c.headDim;
    std::vector<TensorShape> t = {{"model.embed_tokens.weight", {c.vocabSize, d}},
                                  {"model.norm.weight", {d}}};
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        auto add = [&](const std::string& name, std::vector<std::int64_t> shape) {
            t.push_back({p + name, std::move(shape)});
        };
        add("input_layernorm.weight", {d});
        add("post_attention_layernorm.weight", {d});
        if (c.mixerOf(l) == Mixer::Mamba2) {
            addMamba2(c.atLayer(l), c.mamba2.convKernel, true, p + "mamba.", t);
        } else {
            add("self_attn.q_proj.weight", {c.heads * hd, d});
            add("self_attn.k_proj.weight", {c.kvHeads * hd, d});
            add("self_attn.v_proj.weight", {c.kvHeads * hd, d});
            add("self_attn.o_proj.weight", {d, c.heads * hd});
        }
        add("shared_mlp.input_linear.weight", {2 * c.moe.sharedWidth, d});
        add("shared_mlp.output_linear.weight", {d, c.moe.sharedWidth});
        if (!c.kindOf(l).experts) continue;
        const std::int64_t experts = c.moe.experts, width = c.moe.width;
        add("block_sparse_moe.router.layer.weight", {experts, d});
        add("block_sparse_moe.input_linear.weight", {experts, 2 * width, d});
        add("block_sparse_moe.output_linear.weight", {experts, d, width});
    }
    return t;
}

// LFM2: conv.* or self_attn.* per layer, feed_forward's w1/w3/w2 of the adjusted width, the
// final embedding_norm; embeddings tied.
std::vector<TensorShape> lfm2Tensors(const Architecture& c) {
    const std::int64_t d = c.dModel, hd = c.headDim, ff = c.dFF;
    std::vector<TensorShape> t = {{"model.embed_tokens.weight", {c.vocabSize, d}},
                                  {"model.embedding_norm.weight", {d}}};
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        auto add = [&](const std::string& name, std::vector<std::int64_t> shape) {
            t.push_back({p + name, std::move(shape)});
        };
        add("operator_norm.weight", {d});
        add("ffn_norm.weight", {d});
        if (c.mixerOf(l) == Mixer::ShortConv) {
            add("conv.in_proj.weight", {3 * d, d});
            add("conv.conv.weight", {d, 1, c.shortConv.convKernel});
            add("conv.out_proj.weight", {d, d});
        } else {
            add("self_attn.q_proj.weight", {c.heads * hd, d});
            add("self_attn.k_proj.weight", {c.kvHeads * hd, d});
            add("self_attn.v_proj.weight", {c.kvHeads * hd, d});
            add("self_attn.out_proj.weight", {d, c.heads * hd});
            add("self_attn.q_layernorm.weight", {hd});
            add("self_attn.k_layernorm.weight", {hd});
        }
        add("feed_forward.w1.weight", {ff, d});
        add("feed_forward.w3.weight", {ff, d});
        add("feed_forward.w2.weight", {d, ff});
    }
    return t;
}

// Nemotron-H: one mixer per block under backbone.layers.N.mixer — Mamba-2 (with its gated norm),
// attention, a ReLU² MLP, or sigmoid-routed experts with a shared one; lm_head apart.
std::vector<TensorShape> nemotronTensors(const Architecture& c) {
    const std::int64_t d = c.dModel, hd = c.headDim, ff = c.dFF;
    std::vector<TensorShape> t = {{"backbone.embeddings.weight", {c.vocabSize, d}},
                                  {"backbone.norm_f.weight", {d}},
                                  {"lm_head.weight", {c.vocabSize, d}}};
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = "backbone.layers." + std::to_string(l) + ".";
        auto add = [&](const std::string& name, std::vector<std::int64_t> shape) {
            t.push_back({p + name, std::move(shape)});
        };
        add("norm.weight", {d});
        auto upDown = [&](const std::string& q, std::int64_t width) {
            add(q + "up_proj.weight", {width, d});
            add(q + "down_proj.weight", {d, width});
        };
        if (c.mixerOf(l) == Mixer::Mamba2) {
            addMamba2(c.atLayer(l), c.mamba2.convKernel, true, p + "mixer.", t);
        } else if (c.mixerOf(l) == Mixer::Attention) {
            add("mixer.q_proj.weight", {c.heads * hd, d});
            add("mixer.k_proj.weight", {c.kvHeads * hd, d});
            add("mixer.v_proj.weight", {c.kvHeads * hd, d});
            add("mixer.o_proj.weight", {d, c.heads * hd});
        } else if (!c.kindOf(l).experts) {
            upDown("mixer.", ff);
        } else {
            add("mixer.gate.weight", {c.moe.experts, d});
            add("mixer.gate.e_score_correction_bias", {c.moe.experts});
            for (int e = 0; e < c.moe.experts; ++e)
                upDown("mixer.experts." + std::to_string(e) + ".", c.moe.width);
            upDown("mixer.shared_experts.", c.moe.sharedWidth);
        }
    }
    return t;
}

// Falcon-H1: attention and mamba.* side by side in every layer, feed_forward's SwiGLU, the
// final final_layernorm; lm_head apart.
std::vector<TensorShape> falconTensors(const Architecture& c) {
    const std::int64_t d = c.dModel, hd = c.headDim, ff = c.dFF;
    std::vector<TensorShape> t = {{"model.embed_tokens.weight", {c.vocabSize, d}},
                                  {"model.final_layernorm.weight", {d}},
                                  {"lm_head.weight", {c.vocabSize, d}}};
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        auto add = [&](const std::string& name, std::vector<std::int64_t> shape) {
            t.push_back({p + name, std::move(shape)});
        };
        add("input_layernorm.weight", {d});
        add("pre_ff_layernorm.weight", {d});
        add("self_attn.q_proj.weight", {c.heads * hd, d});
        add("self_attn.k_proj.weight", {c.kvHeads * hd, d});
        add("self_attn.v_proj.weight", {c.kvHeads * hd, d});
        add("self_attn.o_proj.weight", {d, c.heads * hd});
        addMamba2(c.besideAt(l), c.mamba2.convKernel, false, p + "mamba.", t);
        add("feed_forward.gate_proj.weight", {ff, d});
        add("feed_forward.up_proj.weight", {ff, d});
        add("feed_forward.down_proj.weight", {d, ff});
    }
    return t;
}

struct Expected {
    const char* name;
    std::vector<TensorShape> (*tensors)(const Architecture&);
    Mixer mixer;                  // of the layers without softmax attention
    int layers, mixerLayers;      // all, and those of `mixer`
    int heads, kvHeads, headDim;  // the attention layers
    int mixerHeads;               // Mamba heads (0: a convolution has none)
    int experts, perToken, dFF;
    double parameters;  // as the model card counts them
    bool runs;          // 4 tokens (the big ones would stream gigabytes of zero pages)
};

void PrintTo(const Expected& e, std::ostream* out) { *out << e.name; }

class MambaConvConfig : public testing::TestWithParam<Expected> {};

TEST_P(MambaConvConfig, OpensDescribesAndRunsFourTokens) {
    const Expected& e = GetParam();
    test::TempDir dir;
    const Architecture c = test::realConfigIn(e.name, dir.path());
    EXPECT_EQ(c.layers, e.layers);
    int mixers = 0, firstAttention = -1;
    for (int l = 0; l < c.layers; ++l) {
        mixers += c.mixerOf(l) == e.mixer;
        if (firstAttention < 0 && c.mixerOf(l) == Mixer::Attention) firstAttention = l;
    }
    EXPECT_EQ(mixers, e.mixerLayers);
    EXPECT_EQ(c.heads, e.heads);
    EXPECT_EQ(c.kvHeads, e.kvHeads);
    EXPECT_EQ(c.headDim, e.headDim);
    EXPECT_EQ(c.headsOf(0), e.mixerHeads);
    EXPECT_EQ(c.moe.experts, e.experts);
    EXPECT_EQ(c.moe.perToken, e.perToken);
    if (e.dFF > 0) {
        EXPECT_EQ(c.dFF, e.dFF);
    }

    test::writeZeros(dir.path() / "model.safetensors", e.tensors(c));
    const auto model = Model::open(dir.path());
    EXPECT_NEAR(static_cast<double>(model->parameterCount()), e.parameters, 0.03 * e.parameters);
    if (!e.runs) return;
    auto backend = createCpuBackend();
    ForwardPass pass(*model, *backend);
    ForwardRequest request;
    request.ids = {1, 2, 3, 4};
    request.capture.layer = firstAttention;  // every layer runs
    const ForwardResult result = pass.run(request);
    ASSERT_EQ(result.trace.layerCount(), c.layers);
    // Zero scores: the fourth token's 4 keys weigh the same.
    EXPECT_FLOAT_EQ(result.trace.probabilities(firstAttention, 0)(3, 0), 0.25f);
    EXPECT_EQ(result.logits.cols(), c.vocabSize);
}

INSTANTIATE_TEST_SUITE_P(
    HubModels, MambaConvConfig,
    testing::Values(
        // 36 Mamba-2 layers of 48 heads × 64 (state 128, one group) and 4 NoPE attention layers
        // of 12 heads / 4 KV; 64 experts of 512, 6 per token, beside a shared MLP of 1024.
        Expected{"granite-4.0-h-tiny", graniteTensors, Mixer::Mamba2, 40, 36, 12, 4, 128, 48, 64, 6,
                 0, 6.9e9, true},
        Expected{"granite-4.0-h-1b", graniteTensors, Mixer::Mamba2, 40, 36, 12, 4, 128, 48, 0, 0, 0,
                 1.46e9, true},
        // Micro: dense, 64 Mamba heads, a shared MLP of 8192 (its tensors count 3.19B, the card
        // says 3B).
        // Small: 128 Mamba heads, 72 experts of 768, 10 per token. The multipliers (which change
        // no shape) are left out of both.
        Expected{"granite-4.0-h-micro", graniteTensors, Mixer::Mamba2, 40, 36, 32, 8, 64, 64, 0, 0,
                 0, 3.19e9, false},
        Expected{"granite-4.0-h-small", graniteTensors, Mixer::Mamba2, 40, 36, 32, 8, 128, 128, 72,
                 10, 0, 32.2e9, false},
        // Nemotron-H-8B: the legacy pattern string (24 Mamba-2 blocks of 128 heads in 8 groups, 4
        // NoPE attention blocks of 32 heads / 8 KV, 24 ReLU² MLPs of 21504) and its
        // "time_step_limit": [0.0, Infinity]. Nemotron 3 Nano: 23 Mamba-2 blocks of 64 heads, 6
        // attention blocks of 32 heads of 128 / 2 KV on a width of 2688, 23 blocks of 128
        // experts of 1856, 6 per token, beside a shared one of 3712.
        Expected{"Nemotron-H-8B-Base-8K", nemotronTensors, Mixer::Mamba2, 52, 24, 32, 8, 128, 128,
                 0, 0, 21504, 8.0e9, false},
        Expected{"NVIDIA-Nemotron-3-Nano-30B-A3B", nemotronTensors, Mixer::Mamba2, 52, 23, 32, 2,
                 128, 64, 128, 6, 1856, 31.6e9, false},
        // 22 short convolutions (3 taps) and 8 attention layers of 32 heads / 8 KV; the MLP
        // 10752 wide as given (block_auto_adjust_ff_dim false: the card's 2.57B needs it).
        Expected{"LFM2-2.6B", lfm2Tensors, Mixer::ShortConv, 30, 22, 32, 8, 64, 0, 0, 0, 10752,
                 2.57e9, true}),
    test::RealConfigName());

// Falcon-H1 3B and 7B: every layer's attention (heads of 128) beside a Mamba-2 mixer of
// mamba_d_ssm channels in heads of 128 (state 256, one group), opened and described (a run
// would stream 6 and 15 GB of zero pages; both mixers run on the shared reference).
TEST(RealConfigFalconH1, BothMixersOfEveryLayerOpenAtTheirFullShapes) {
    for (const auto& [name, layers, heads, mambaHeads] :
         {std::tuple{"Falcon-H1-3B-Base", 32, 10, 32},
          std::tuple{"Falcon-H1-7B-Base", 44, 12, 24}}) {
        SCOPED_TRACE(name);
        test::TempDir dir;
        const Architecture c = test::realConfigIn(name, dir.path());
        EXPECT_EQ(c.layers, layers);
        EXPECT_EQ(c.heads, heads);
        EXPECT_EQ(c.kvHeads, 2);
        EXPECT_EQ(c.headDim, 128);
        for (int l = 0; l < c.layers; ++l) {
            EXPECT_EQ(c.mixerOf(l), Mixer::Attention);
            EXPECT_EQ(c.besideAt(l).heads, mambaHeads);
            EXPECT_EQ(c.besideAt(l).headDim, 256);  // B's and C's width: the state
        }
        test::writeZeros(dir.path() / "model.safetensors", falconTensors(c));
        const auto model = Model::open(dir.path());
        EXPECT_EQ(model->weights().layers.at(0).beside.size(), 1u);
    }
}

}  // namespace
}  // namespace qkv
