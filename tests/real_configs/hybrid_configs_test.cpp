// The hybrids' Hub configs at their full shapes (tests/data/real-configs: the keys that decide
// the shapes, as the Hub's config.json files give them), opened from zero weights (holes, no
// disk) with the tensors the Hub files hold — the multi-token-prediction layers (mtp.*) and the
// vision tower transformers does not load for text included, and ignored — then described and
// counted; a run of Qwen3.5's layers at full shape is the benchmark's (--shape qwen3.5-9b).
#include <gtest/gtest.h>

#include "core/model/forward.h"
#include "core/model/model_family.h"
#include "tests/real_configs/zero_checkpoint.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

using test::TensorShape;

// A Gated DeltaNet layer's tensors under `p`: Qwen3.5's separate projections or Qwen3-Next's
// fused per key-head group.
void addDeltaNet(const Architecture& layer, bool fused, const std::string& p,
                 std::vector<TensorShape>& t, int kernel) {
    const std::int64_t d = layer.dModel, keys = std::int64_t{layer.kvHeads} * layer.headDim,
                       values = std::int64_t{layer.heads} * layer.valueWidth(), nv = layer.heads;
    if (fused) {
        t.push_back({p + "in_proj_qkvz.weight", {2 * keys + 2 * values, d}});
        t.push_back({p + "in_proj_ba.weight", {2 * nv, d}});
    } else {
        t.push_back({p + "in_proj_qkv.weight", {2 * keys + values, d}});
        t.push_back({p + "in_proj_z.weight", {values, d}});
        t.push_back({p + "in_proj_b.weight", {nv, d}});
        t.push_back({p + "in_proj_a.weight", {nv, d}});
    }
    t.push_back({p + "conv1d.weight", {2 * keys + values, 1, kernel}});
    t.push_back({p + "A_log", {nv}});
    t.push_back({p + "dt_bias", {nv}});
    t.push_back({p + "norm.weight", {layer.valueWidth()}});
    t.push_back({p + "out_proj.weight", {d, values}});
}

// Qwen3.5 (dense or MoE, under `prefix`) and Qwen3-Next as the Hub stores them.
std::vector<TensorShape> gatedDeltaNetTensors(const Architecture& c, const std::string& prefix,
                                              bool fusedExperts) {
    const bool next = c.modelType == "qwen3_next";
    const std::int64_t d = c.dModel, hd = c.headDim;
    std::vector<TensorShape> t = {{prefix + "embed_tokens.weight", {c.vocabSize, d}},
                                  {prefix + "norm.weight", {d}},
                                  {"lm_head.weight", {c.vocabSize, d}},
                                  {"mtp.fc.weight", {d, 2 * d}},  // ignored, as transformers does
                                  {"mtp.layers.0.input_layernorm.weight", {d}}};
    if (!next) t.push_back({"model.visual.patch_embed.proj.weight", {1152, 3, 2, 16, 16}});
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = prefix + "layers." + std::to_string(l) + ".";
        auto add = [&](const std::string& name, std::vector<std::int64_t> shape) {
            t.push_back({p + name, std::move(shape)});
        };
        add("input_layernorm.weight", {d});
        add("post_attention_layernorm.weight", {d});
        if (c.mixerOf(l) == Mixer::GatedDeltaNet) {
            addDeltaNet(c.atLayer(l), next, p + "linear_attn.", t, c.deltaNet.convKernel);
        } else {
            add("self_attn.q_proj.weight", {2 * c.heads * hd, d});  // [query | gate] per head
            add("self_attn.k_proj.weight", {c.kvHeads * hd, d});
            add("self_attn.v_proj.weight", {c.kvHeads * hd, d});
            add("self_attn.o_proj.weight", {d, c.heads * hd});
            add("self_attn.q_norm.weight", {hd});
            add("self_attn.k_norm.weight", {hd});
        }
        if (!c.kindOf(l).experts) {
            add("mlp.gate_proj.weight", {c.dFF, d});
            add("mlp.up_proj.weight", {c.dFF, d});
            add("mlp.down_proj.weight", {d, c.dFF});
            continue;
        }
        const std::int64_t experts = c.moe.experts, width = c.moe.width, shared = c.moe.sharedWidth;
        add("mlp.gate.weight", {experts, d});
        if (fusedExperts) {
            add("mlp.experts.gate_up_proj", {experts, 2 * width, d});
            add("mlp.experts.down_proj", {experts, d, width});
        } else {
            for (int e = 0; e < experts; ++e) {
                const std::string expert = "mlp.experts." + std::to_string(e) + ".";
                add(expert + "gate_proj.weight", {width, d});
                add(expert + "up_proj.weight", {width, d});
                add(expert + "down_proj.weight", {d, width});
            }
        }
        add("mlp.shared_expert.gate_proj.weight", {shared, d});
        add("mlp.shared_expert.up_proj.weight", {shared, d});
        add("mlp.shared_expert.down_proj.weight", {d, shared});
        add("mlp.shared_expert_gate.weight", {1, d});
    }
    return t;
}

struct Hybrid {
    const char* name;
    const char* prefix;  // of the text model's tensors
    int layers, linearLayers;
    int heads, kvHeads, headDim, rotaryDims;  // the full-attention layers
    int valueHeads, keyHeads;                 // the linear layers
    int experts, perToken;
    bool fusedExperts;  // gate_up_proj as one tensor (Qwen3.5-MoE) or one per expert
    double parameters;  // of the text model, as the model card counts them
};

void PrintTo(const Hybrid& h, std::ostream* out) { *out << h.name; }

class HybridConfig : public testing::TestWithParam<Hybrid> {};

// Not run: Qwen3.5-9B would stream 18 GB of zero pages and the mixtures take 20 s of a CI run
// between them; Qwen3.5's layers run at full shape in the benchmark (--shape qwen3.5-9b).
TEST_P(HybridConfig, OpensAndIsDescribedAsTransformersReadsIt) {
    const Hybrid& e = GetParam();
    test::TempDir dir;
    const Architecture c = test::realConfigIn(e.name, dir.path());
    EXPECT_EQ(c.layers, e.layers);
    int linear = 0;
    for (int l = 0; l < c.layers; ++l) linear += c.mixerOf(l) == Mixer::GatedDeltaNet;
    EXPECT_EQ(linear, e.linearLayers);
    EXPECT_EQ(c.mixerOf(3), Mixer::Attention);  // every fourth layer is full attention
    EXPECT_EQ(c.heads, e.heads);
    EXPECT_EQ(c.kvHeads, e.kvHeads);
    EXPECT_EQ(c.headDim, e.headDim);
    EXPECT_EQ(c.rotary.dims, e.rotaryDims);
    EXPECT_TRUE(c.outputGate);
    const Architecture layer0 = c.atLayer(0);
    EXPECT_EQ(layer0.heads, e.valueHeads);
    EXPECT_EQ(layer0.kvHeads, e.keyHeads);
    EXPECT_EQ(layer0.headDim, 128);
    EXPECT_EQ(layer0.valueWidth(), 128);
    EXPECT_EQ(c.moe.experts, e.experts);
    EXPECT_EQ(c.moe.perToken, e.perToken);

    test::writeZeros(dir.path() / "model.safetensors",
                     gatedDeltaNetTensors(c, e.prefix, e.fusedExperts));
    const auto model = Model::open(dir.path());
    EXPECT_NEAR(static_cast<double>(model->parameterCount()), e.parameters, 0.02 * e.parameters);
}

INSTANTIATE_TEST_SUITE_P(
    HubModels, HybridConfig,
    testing::Values(
        // Qwen3.5-9B, the Hub's multimodal wrapper: 24 linear layers of 16 key / 32 value heads,
        // 8 gated full-attention layers of 16 heads / 4 KV of 256 (64 rotary dims).
        Hybrid{"Qwen3.5-9B", "model.language_model.", 32, 24, 16, 4, 256, 64, 32, 16, 0, 0, false,
               8.95e9},
        // 27B: 48 linear layers of 16 key / 48 value heads, 16 full-attention layers of 24 heads /
        // 4 KV. 397B-A17B: 45 linear layers of 16 / 64, 15 of 32 heads / 2 KV, 512 experts.
        Hybrid{"Qwen3.5-27B", "model.language_model.", 64, 48, 24, 4, 256, 64, 48, 16, 0, 0, false,
               27e9},
        Hybrid{"Qwen3.5-397B-A17B", "model.language_model.", 60, 45, 32, 2, 256, 64, 64, 16, 512,
               10, true, 397e9},
        Hybrid{"Qwen3.5-35B-A3B", "model.language_model.", 40, 30, 16, 2, 256, 64, 32, 16, 256, 8,
               true, 34.7e9},
        Hybrid{"Qwen3-Next-80B-A3B-Instruct", "model.", 48, 36, 16, 2, 256, 64, 32, 16, 512, 10,
               false, 79.67e9}),
    test::RealConfigName());

}  // namespace
}  // namespace qkv
