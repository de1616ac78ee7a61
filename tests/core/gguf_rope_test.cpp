// Rotary scaling in GGUF files: Llama 3.1's llama3 scaling as llama.cpp's converter stores it, a
// rope_freqs.weight tensor of per-pair frequency divisors; YaRN from rope.scaling.*; Phi-3.5's
// and Phi-4-mini's LongRoPE as the rope_factors_long and rope_factors_short tensors. The shared
// llama3rope reference model (Hugging Face's llama3 rope) is written here as that converter writes
// a Llama checkpoint — Q and K rows interleaved per head, the divisors computed from its
// rope_scaling — and the file must compute every head and the logits as transformers does on the
// original.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>

#include "core/io/gguf_writer.h"
#include "core/model/forward.h"
#include "core/model/gguf_checkpoint.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/gguf_from_folder.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

// As GgufReference: the references' float32-vs-float64 gap is below 1e-5; the factors the
// converter computes in float32 move the angles by a few ulps.
constexpr double kAttentionTolerance = 1e-4;
constexpr double kLogitTolerance = 5e-4;

// llama.cpp's converter for rope_type llama3: a pair whose wavelength is shorter than
// original / high keeps its frequency (factor 1), longer than original / low is slowed by
// `factor`, and the band between interpolates.
std::vector<float> llama3Factors(double theta, int dims, double factor, double low, double high,
                                 double original) {
    std::vector<float> factors;
    for (int i = 0; i < dims / 2; ++i) {
        const double frequency = std::pow(theta, -2.0 * i / dims);
        const double wavelength = 2 * std::numbers::pi / frequency;
        if (wavelength < original / high) {
            factors.push_back(1.0f);
        } else if (wavelength > original / low) {
            factors.push_back(static_cast<float>(factor));
        } else {
            const double smooth = (original / wavelength - low) / (high - low);
            factors.push_back(static_cast<float>(1.0 / ((1 - smooth) / factor + smooth)));
        }
    }
    return factors;
}

// The reference model's config.json: 2 layers, d_model 64, 4 heads of 16, 2 key/value heads,
// rope_theta 10000, llama3 x8 (low 1, high 4, original 32).
constexpr int kLayers = 2, kHeads = 4, kKvHeads = 2, kHeadDim = 16;

// llama3rope's tensors and shape as llama.cpp's converter writes a Llama, without its scaling.
void convertLlama(test::GgufFromFolder& converted) {
    GgufWriter& gguf = converted.gguf();
    gguf.addString("general.architecture", "llama");
    gguf.addUint32("llama.block_count", kLayers);
    gguf.addUint32("llama.context_length", 128);
    gguf.addUint32("llama.embedding_length", 64);
    gguf.addUint32("llama.feed_forward_length", 128);
    gguf.addUint32("llama.attention.head_count", kHeads);
    gguf.addUint32("llama.attention.head_count_kv", kKvHeads);
    gguf.addUint32("llama.rope.dimension_count", kHeadDim);
    gguf.addFloat32("llama.rope.freq_base", 10000.0f);
    gguf.addFloat32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
    converted.addEmbeddingsAndHead(true);
    for (int l = 0; l < kLayers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        const std::string hf = "model.layers." + std::to_string(l) + ".";
        converted.add(blk + "attn_q.weight", hf + "self_attn.q_proj.weight", kHeads);
        converted.add(blk + "attn_k.weight", hf + "self_attn.k_proj.weight", kKvHeads);
        converted.addLayer(l, {{"attn_norm", "input_layernorm"},
                               {"attn_v", "self_attn.v_proj"},
                               {"attn_output", "self_attn.o_proj"},
                               {"ffn_norm", "post_attention_layernorm"}});
        converted.addLayer(l, test::kGatedMlpTensors);
    }
}

TEST(GgufRope, Llama3FrequencyFactorsComputeAsTransformersDoes) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "llama3rope-random-tiny";
    test::GgufFromFolder converted(folder);
    convertLlama(converted);
    GgufWriter& gguf = converted.gguf();
    gguf.addTensor("rope_freqs.weight", {kHeadDim / 2},
                   llama3Factors(10000.0, kHeadDim, 8.0, 1.0, 4.0, 32.0));
    const test::TempDir dir;
    gguf.write(dir.path() / "llama3rope.gguf");

    auto model = Model::open(dir.path() / "llama3rope.gguf");
    EXPECT_EQ(model->architecture().rotary.scaling.type, RopeType::FrequencyFactors);
    EXPECT_NE(model->architecture().rotary.describe().find("frequency_factors"), std::string::npos);
    const test::ModelReference reference = test::loadReference(folder / "hf_reference.json");
    test::expectOriginalResults(*model, reference, kAttentionTolerance, kLogitTolerance);
}

// YaRN as llama.cpp's converter writes it (type, factor, original context, the betas) opens as
// the same model with that rope_scaling in its config.json (whose YaRN the gpt-oss reference
// checks against transformers): the same rotation, attention factor, heads and logits.
TEST(GgufRope, YarnComputesAsTheConfigItCameFrom) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "llama3rope-random-tiny";
    const test::TempDir dir;
    test::GgufFromFolder converted(folder);
    convertLlama(converted);
    GgufWriter& gguf = converted.gguf();
    gguf.addString("llama.rope.scaling.type", "yarn");
    gguf.addFloat32("llama.rope.scaling.factor", 4.0f);
    gguf.addUint32("llama.rope.scaling.original_context_length", 32);
    gguf.addFloat32("llama.rope.scaling.yarn_beta_fast", 16.0f);
    gguf.addFloat32("llama.rope.scaling.yarn_beta_slow", 2.0f);
    gguf.write(dir.path() / "yarn.gguf");

    const auto yarnFolder =
        test::folderWithEditedConfig(folder, dir.path(), [](nlohmann::json& config) {
            config["rope_scaling"] = {{"rope_type", "yarn"},
                                      {"factor", 4.0},
                                      {"original_max_position_embeddings", 32},
                                      {"beta_fast", 16.0},
                                      {"beta_slow", 2.0}};
        });
    const auto file = Model::open(dir.path() / "yarn.gguf");
    const auto reference = Model::open(yarnFolder);
    const Rotary& rotary = file->architecture().rotary;
    EXPECT_EQ(rotary.scaling.type, RopeType::Yarn);
    EXPECT_EQ(rotary.describe(), reference->architecture().rotary.describe());
    EXPECT_EQ(rotary.frequencies(8), reference->architecture().rotary.frequencies(8));
    // The same float32 weights (Q and K outputs gathered back in order exactly) and the same
    // angles: only the order of float32 sums may differ.
    test::expectSameResults(*file, *reference, 1e-6f, 1e-5f);
}

// shared/models/phi3longrope-random-tiny as llama.cpp's Phi-3 converter writes it: fused
// attn_qkv and ffn_up (gate and up), tied output, partial rotary (rope.dimension_count 12 of
// heads of 16), the two contexts, and rope_scaling's long and short factors as tensors.
TEST(GgufRope, LongRopeComputesAsTransformersDoes) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "phi3longrope-random-tiny";
    std::ifstream in(folder / "config.json");
    const nlohmann::json config = nlohmann::json::parse(in);
    constexpr int kPhiLayers = 2;  // its config.json: d_model 64, 4 heads, 2 key/value heads
    test::GgufFromFolder converted(folder);
    converted.describe({.arch = "phi3", .layers = kPhiLayers, .normEps = 1e-5f, .context = 64});
    GgufWriter& gguf = converted.gguf();
    gguf.addUint32("phi3.rope.dimension_count", 12);
    gguf.addUint32("phi3.rope.scaling.original_context_length", 16);
    gguf.addFloat32("phi3.rope.scaling.attn_factor",
                    static_cast<float>(std::sqrt(1 + std::log(64.0 / 16) / std::log(16.0))));
    std::vector<float> longFactors, shortFactors;
    for (double f : config["rope_scaling"]["long_factor"]) longFactors.push_back(f);
    for (double f : config["rope_scaling"]["short_factor"]) shortFactors.push_back(f);
    gguf.addTensor("rope_factors_long.weight", {6}, longFactors);
    gguf.addTensor("rope_factors_short.weight", {6}, shortFactors);
    converted.addEmbeddingsAndHead(false);
    for (int l = 0; l < kPhiLayers; ++l) {
        converted.addLayer(l, {{"attn_norm", "input_layernorm"},
                               {"attn_qkv", "self_attn.qkv_proj"},
                               {"attn_output", "self_attn.o_proj"},
                               {"ffn_norm", "post_attention_layernorm"},
                               {"ffn_up", "mlp.gate_up_proj"},
                               {"ffn_down", "mlp.down_proj"}});
    }
    const test::TempDir dir;
    converted.write(dir.path() / "phi3.gguf");
    const auto model = Model::open(dir.path() / "phi3.gguf");
    EXPECT_EQ(model->architecture().rotary.scaling.type, RopeType::LongRope);
    test::expectOriginalResults(*model, test::loadReference(folder / "hf_reference.json"),
                                kAttentionTolerance, kLogitTolerance);
}

// The metadata of a one-layer Llama of two heads of 4 (zero weights: only opening is tried).
GgufWriter tinyLlama() {
    GgufWriter gguf;
    gguf.addString("general.architecture", "llama");
    gguf.addUint32("llama.block_count", 1);
    gguf.addUint32("llama.embedding_length", 8);
    gguf.addUint32("llama.feed_forward_length", 8);
    gguf.addUint32("llama.attention.head_count", 2);
    gguf.addTensor("token_embd.weight", {8, 4}, std::vector<float>(32, 0.0f));
    return gguf;
}

std::string openingError(const GgufWriter& gguf) {
    const test::TempDir dir;
    gguf.write(dir.path() / "m.gguf");
    try {
        Model::open(dir.path() / "m.gguf");
    } catch (const Error& e) {
        return e.what();
    }
    return "(opened)";
}

TEST(GgufRope, FactorsOfAnotherWidthAreRefused) {
    GgufWriter gguf = tinyLlama();
    gguf.addTensor("rope_freqs.weight", {3}, {1.0f, 2.0f, 4.0f});  // heads of 4 turn 2 pairs
    EXPECT_NE(openingError(gguf).find("\"factors\" has 3 factors"), std::string::npos)
        << openingError(gguf);
}

TEST(GgufRope, LinearScalingIsReadAndUnknownOnesAreRefusedByName) {
    GgufWriter linear = tinyLlama();
    linear.addString("llama.rope.scaling.type", "linear");
    linear.addFloat32("llama.rope.scaling.factor", 4.0f);
    const test::TempDir dir;
    linear.write(dir.path() / "linear.gguf");
    const nlohmann::json config =
        nlohmann::json::parse(openGgufCheckpoint(dir.path() / "linear.gguf").configJson);
    EXPECT_EQ(config["rope_scaling"], nlohmann::json({{"rope_type", "linear"}, {"factor", 4.0}}));
    GgufWriter longrope = tinyLlama();
    longrope.addString("llama.rope.scaling.type", "longrope");
    EXPECT_NE(openingError(longrope).find("GGUF rotary scaling \"longrope\""), std::string::npos)
        << openingError(longrope);
    // llama.cpp's own extrapolation factor has no transformers counterpart.
    GgufWriter extrapolated = tinyLlama();
    extrapolated.addString("llama.rope.scaling.type", "yarn");
    extrapolated.addFloat32("llama.rope.scaling.factor", 4.0f);
    extrapolated.addFloat32("llama.rope.scaling.yarn_ext_factor", 0.5f);
    EXPECT_NE(openingError(extrapolated).find("yarn_ext_factor"), std::string::npos)
        << openingError(extrapolated);
}

}  // namespace
}  // namespace qkv
