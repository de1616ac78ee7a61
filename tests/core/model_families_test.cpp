// Every supported family: stored dtypes (below) and config.json errors that name the key or
// tensor at fault (at the end).
// The stored-dtype check: F16 and BF16 files give the attention and logits of a float32 file
// holding the same rounded values, so binders read whatever dtype the safetensors store.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/io/safetensors.h"
#include "core/model/forward.h"
#include "core/model/model_family.h"
#include "core/model/relative_position.h"
#include "core/util/half.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"
#include "tests/support/shared_models.h"

namespace qkv {
namespace {

using test::Stored;
using test::writeRounded;

ForwardResult run(const std::filesystem::path& folder, const std::vector<int>& ids) {
    auto model = Model::open(folder);
    auto backend = createCpuBackend();
    ForwardRequest request;
    request.ids = ids;
    request.config = WConfiguration::parse("shared-qk");
    return ForwardPass(*model, *backend).run(request);
}

TEST(FamilyDtypes, HalfPrecisionFilesGiveTheFloat32Results) {
    QKV_REQUIRE_SHARED(shared);
    for (const std::string& name : test::supportedSharedModelNames(shared)) {
        const auto folder = shared / "models" / name;
        // FP8 folders keep their compact weights as e4m3 blocks (fp8_checkpoint_test).
        if (loadArchitecture(folder / "config.json").quantisation == "fp8") continue;
        const auto ids = test::loadReference(folder / "hf_reference.json").sentences[0].ids;
        for (Stored dtype : {Stored::F16, Stored::BF16}) {
            SCOPED_TRACE(name + (dtype == Stored::F16 ? " F16" : " BF16"));
            test::TempDir half, full;
            writeRounded(folder, dtype, half.path(), full.path());
            // Kept in the stored type: the matrices view the file, none is widened whole.
            const ElementType stored = dtype == Stored::F16 ? ElementType::F16 : ElementType::BF16;
            const auto halfModel = Model::open(half.path());
            for (const LayerWeights& layer : halfModel->weights().layers)
                for (const MatrixView* w :
                     {&layer.query.weight, &layer.key.weight, &layer.value.weight,
                      &layer.output.weight, &layer.latent.queryDown.weight,
                      &layer.latent.queryUp.weight, &layer.latent.latent.weight,
                      &layer.latent.rotaryKey.weight, &layer.latent.keyValueUp.weight})
                    if (!w->empty()) {
                        ASSERT_EQ(w->type, stored);
                    }
            EXPECT_EQ(halfModel->weights().tokenEmbedding.type, stored);
            const ForwardResult a = run(half.path(), ids);
            const ForwardResult b = run(full.path(), ids);
            // The same float32 values, but the half files' weights stay compact and are widened
            // and multiplied panel by panel, the float32 file's as whole matrices: OpenBLAS sums
            // in another order, a few ulps apart, which stories260K's sharp trained heads amplify
            // (1.7e-6 measured alone, 1.25e-5 once under a parallel ctest).
            constexpr float kTolerance = 3e-5f;
            for (int l = 0; l < a.trace.layerCount(); ++l)
                for (int h = 0; h < a.trace.headCount(l); ++h)
                    ASSERT_LE((a.trace.probabilities(l, h) - b.trace.probabilities(l, h))
                                  .cwiseAbs()
                                  .maxCoeff(),
                              kTolerance);
            EXPECT_LE((a.logits - b.logits).cwiseAbs().maxCoeff(),
                      kTolerance * (1 + b.logits.cwiseAbs().maxCoeff()));
        }
    }
}

}  // namespace
}  // namespace qkv

namespace qkv {
namespace {

// A copy of a shared family folder whose config.json has `key` removed (null) or replaced.
std::string openErrorWithConfig(const std::filesystem::path& source, const std::string& key,
                                const nlohmann::json& value, const test::TempDir& dir) {
    std::ifstream in(source / "config.json");
    nlohmann::json config = nlohmann::json::parse(in);
    if (value.is_null())
        config.erase(key);
    else
        config[key] = value;
    test::writeText(dir.path() / "config.json", config.dump());
    std::filesystem::create_symlink(source / "model.safetensors", dir.path() / "model.safetensors");
    return test::openingError(dir.path());
}

TEST(FamilyConfigErrors, MissingKeysAndDisagreeingWidthsAreNamed) {
    QKV_REQUIRE_SHARED(shared);
    struct Case {
        const char* model;
        const char* key;
        nlohmann::json value;
        const char* fragment;
    };
    const Case cases[] = {
        {"gemma2-random-tiny", "num_attention_heads", nullptr, "missing \"num_attention_heads\""},
        {"gpt_neox-random-tiny", "rotary_pct", 0.0, "\"rotary_pct\" must rotate"},
        {"distilbert-random-tiny", "dim", nullptr, "missing \"dim\""},
        {"opt-random-tiny", "word_embed_proj_dim", 32,
         "embed_tokens.weight' has shape [1024, 64], expected [1024, 32]"},
        {"phi3-random-tiny", "rope_scaling", nlohmann::json{{"type", "longrope"}}, "rope_scaling"},
        {"qwen2-random-tiny", "use_sliding_window", true, "use_sliding_window"},
        {"roberta-random-tiny", "hidden_size", 32,
         "'roberta.embeddings.word_embeddings.weight' has shape [1024, 64], expected [1024, 32]"},
        {"gemma2-random-tiny", "head_dim", 16,
         "q_proj.weight' has shape [128, 64], expected [64, 64]"},
        {"phi3-random-tiny", "intermediate_size", 64, "gate_up_proj.weight' has shape"},
        {"gpt_neox-random-tiny", "num_attention_heads", 5, "not divisible by 5 heads"},
        {"marian-random-tiny", "normalize_before", true, "\"normalize_before\": true"},
        {"marian-random-tiny", "decoder_vocab_size", 2048, "separate source and target"},
        {"marian-random-tiny", "decoder_layers", 3,
         "missing tensor 'decoder.layers.2.self_attn.q_proj.weight'"},
        {"t5-random-tiny", "feed_forward_proj", "gated-tanh", "\"feed_forward_proj\""},
        {"t5-random-tiny", "tie_word_embeddings", false, "missing tensor 'lm_head.weight'"},
        {"t5-random-tiny", "relative_attention_num_buckets", 16,
         "relative_attention_bias.weight' has shape [32, 4], expected [16, 4]"},
        // The current generation's keys.
        {"llama3rope-random-tiny", "rope_scaling", nlohmann::json{{"rope_type", "su"}},
         "\"rope_scaling\": unsupported \"rope_type\" \"su\""},
        {"llama3rope-random-tiny", "rope_scaling",
         nlohmann::json{{"rope_type", "llama3"}, {"factor", 8.0}},
         "\"rope_scaling\": missing \"low_freq_factor\""},
        {"gemma3-random-tiny", "layer_types", nlohmann::json{"sliding_attention", "full_attention"},
         "\"layer_types\" lists 2 layers; the model has 6"},
        {"gemma3-random-tiny", "layer_types", nlohmann::json(6, "chunked_attention"),
         "\"layer_types\" entry \"chunked_attention\" is not supported"},
        {"phi3longrope-random-tiny", "rope_scaling",
         nlohmann::json{{"type", "longrope"},
                        {"short_factor", {1.0, 1.0}},
                        {"long_factor", {1.0, 1.0, 1.0, 1.0, 1.0, 1.0}}},
         "\"short_factor\" has 2 factors; the rotary embedding rotates 6 pairs"},
        {"phi3longrope-random-tiny", "partial_rotary_factor", 0.1,
         "\"partial_rotary_factor\" leaves 1 rotated dimensions"},
        {"smollm3-random-tiny", "no_rope_layers", nlohmann::json{1, 0},
         "\"no_rope_layers\" lists 2 layers; the model has 4"},
        {"qwen3-random-tiny", "head_dim", 16,
         "q_proj.weight' has shape [128, 64], expected [64, 64]"},
        {"olmo2-random-tiny", "num_key_value_heads", 4,
         "k_proj.weight' has shape [32, 64], expected [64, 64]"},
        {"gemma3mm-random-tiny", "text_config", nullptr, "missing \"text_config\""},
        // Latent attention and DeepSeek's routing.
        {"deepseek_v3-random-tiny", "kv_lora_rank", 96,
         "\"kv_lora_rank\" (96) exceeds hidden_size (64)"},
        {"deepseek_v3-random-tiny", "num_key_value_heads", 2,
         "\"num_key_value_heads\" (2) must equal the heads"},
        {"deepseek_v3-random-tiny", "qk_rope_head_dim", 7, "\"qk_rope_head_dim\" must be even"},
        {"deepseek_v3-random-tiny", "n_group", 3,
         "\"n_group\" 3 and \"topk_group\" 2 do not fit 8 experts"},
        {"deepseek_v3-random-tiny", "num_experts_per_tok", 9,
         "\"num_experts_per_tok\" (9) exceeds the 8 experts"},
        {"deepseek_v3-random-tiny", "v_head_dim", 8,
         "kv_b_proj.weight' has shape [128, 16], expected [96, 16]"},
        // Hybrids: Gated DeltaNet's heads and convolution, the gated shared expert.
        {"qwen3_5-random-tiny", "linear_num_value_heads", 3,
         "\"linear_num_value_heads\" (3) is not a multiple of \"linear_num_key_heads\" (2)"},
        {"qwen3_5-random-tiny", "layer_types", nlohmann::json{"linear_attention"},
         "\"layer_types\" lists 1 layers; the model has 4"},
        {"qwen3_5-random-tiny", "linear_conv_kernel_dim", 3, "conv1d.weight' has shape"},
        {"qwen3_5_moe-random-tiny", "shared_expert_intermediate_size", 16,
         "shared_expert.gate_proj.weight' has shape [32, 64], expected [16, 64]"},
        {"qwen3_5_moe-random-tiny", "moe_intermediate_size", 16, "gate_up_proj' has shape"},
        {"qwen3_next-random-tiny", "linear_value_head_dim", 8, "in_proj_qkvz.weight' has shape"},
        {"nemotron_h-random-tiny", "n_groups", 3,
         "\"n_groups\" (3) does not divide the 8 Mamba heads"},
        {"nemotron_h-random-tiny", "layers_block_type",
         nlohmann::json{"mamba", "moe", "conv", "attention", "mlp"},
         "\"layers_block_type\" entry \"conv\" is not supported"},
        {"nemotron_h-random-tiny", "num_hidden_layers", 4,
         "\"num_hidden_layers\" (4) disagrees with the 5 blocks listed"},
        {"nemotron_h-random-tiny", "conv_kernel", 3, "conv1d.weight' has shape"},
        {"nemotron_h-random-tiny", "ssm_state_size", 8, "in_proj.weight' has shape"},
        {"granitemoehybrid-random-tiny", "mamba_n_groups", 3,
         "\"mamba_n_groups\" (3) does not divide the 8 Mamba heads"},
        {"granitemoehybrid-random-tiny", "layer_types", nlohmann::json{"mamba", "attention"},
         "\"layer_types\" lists 2 layers; the model has 4"},
        {"granitemoehybrid-random-tiny", "time_step_limit", nlohmann::json{1.0, 0.5},
         "\"time_step_limit\" must be [low, high]"},
        {"granitemoehybrid-random-tiny", "mamba_d_conv", 2, "conv1d.weight' has shape"},
        {"lfm2-random-tiny", "layer_types", nlohmann::json{"conv", "full_attention"},
         "\"layer_types\" lists 2 layers; the model has 5"},
        {"lfm2-random-tiny", "layer_types", nlohmann::json(5, "mamba"),
         "\"layer_types\" entry \"mamba\" is not supported (conv or full_attention)"},
        {"lfm2-random-tiny", "conv_L_cache", 4,
         "conv.conv.weight' has shape [64, 1, 3], expected [64, 1, 4]"},
        {"lfm2-random-tiny", "block_multiple_of", 64, "w1.weight' has shape [96, 64]"},
        {"falcon_h1-random-tiny", "ssm_multipliers", nlohmann::json{1.0, 2.0},
         "\"ssm_multipliers\" lists 2 multipliers, not 5"},
        {"falcon_h1-random-tiny", "mamba_d_ssm", 128,
         "\"mamba_d_ssm\" (128) is not \"mamba_n_heads\" × \"mamba_d_head\" (96)"},
        {"falcon_h1-random-tiny", "mamba_n_groups", 4,
         "\"mamba_n_groups\" (4) does not divide the 6 Mamba heads"},
        {"falcon_h1-random-tiny", "mamba_rms_norm", true,
         "missing tensor 'layers.0.mamba.norm.weight'"},
        {"falcon_h1-random-tiny", "mamba_d_state", 8, "mamba.in_proj.weight' has shape"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string(c.model) + " " + c.key);
        test::TempDir dir;
        const std::string message =
            openErrorWithConfig(shared / "models" / c.model, c.key, c.value, dir);
        EXPECT_NE(message.find(c.fragment), std::string::npos) << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << "one line";
    }
}

// The configs of real translation checkpoints (Helsinki-NLP/opus-mt-en-fr, google/flan-t5-small,
// keys as the Hub has them) read into the shapes those models have.
TEST(FamilyConfigs, RealEncoderDecoderConfigsRead) {
    const Architecture marian = parseArchitecture(R"({
        "activation_function": "swish", "add_bias_logits": false, "add_final_layer_norm": false,
        "architectures": ["MarianMTModel"], "bad_words_ids": [[59513]], "bos_token_id": 0,
        "d_model": 512, "decoder_attention_heads": 8, "decoder_ffn_dim": 2048,
        "decoder_layers": 6, "decoder_start_token_id": 59513, "decoder_vocab_size": 59514,
        "encoder_attention_heads": 8, "encoder_ffn_dim": 2048, "encoder_layers": 6,
        "eos_token_id": 0, "extra_pos_embeddings": 59514, "forced_eos_token_id": 0,
        "is_encoder_decoder": true, "max_length": 512, "max_position_embeddings": 512,
        "model_type": "marian", "normalize_before": false, "normalize_embedding": false,
        "num_beams": 4, "num_hidden_layers": 6, "pad_token_id": 59513, "scale_embedding": true,
        "share_encoder_decoder_embeddings": true, "static_position_embeddings": true,
        "vocab_size": 59514})",
                                                  "opus-mt-en-fr/config.json");
    EXPECT_EQ(marian.family, "marian");
    EXPECT_TRUE(marian.isEncoderDecoder());
    EXPECT_EQ(marian.layers, 6);
    EXPECT_EQ(marian.decoderLayers, 6);
    EXPECT_EQ(marian.headDim, 64);
    EXPECT_EQ(marian.decoderHeadDim, 64);
    EXPECT_EQ(marian.decoderStartToken, 59513);
    EXPECT_EQ(marian.eosToken, 0);
    EXPECT_FLOAT_EQ(marian.embeddingScale, std::sqrt(512.0f));
    EXPECT_EQ(marian.activation, Activation::Silu);
    EXPECT_FALSE(marian.preNorm);
    EXPECT_EQ(marian.decoderArchitecture().causal, true);

    const Architecture flan = parseArchitecture(R"({
        "architectures": ["T5ForConditionalGeneration"], "d_ff": 1024, "d_kv": 64, "d_model": 512,
        "decoder_start_token_id": 0, "dense_act_fn": "gelu_new", "eos_token_id": 1,
        "feed_forward_proj": "gated-gelu", "is_encoder_decoder": true, "is_gated_act": true,
        "layer_norm_epsilon": 1e-06, "model_type": "t5", "n_positions": 512,
        "num_decoder_layers": 8, "num_heads": 6, "num_layers": 8, "pad_token_id": 0,
        "relative_attention_max_distance": 128, "relative_attention_num_buckets": 32,
        "tie_word_embeddings": false, "vocab_size": 32128})",
                                                "flan-t5-small/config.json");
    EXPECT_EQ(flan.family, "t5");
    EXPECT_EQ(flan.heads * flan.headDim, 384);  // narrower than d_model 512: its own widths
    EXPECT_EQ(flan.activation, Activation::GeluTanhGlu);
    EXPECT_FALSE(flan.tiedEmbeddings);
    EXPECT_FLOAT_EQ(flan.logitInputScale, 1.0f);  // untied: no 1/sqrt(d) before the head
    EXPECT_FLOAT_EQ(flan.attentionScale, 1.0f);
    EXPECT_EQ(flan.relativeBuckets, 32);

    // facebook/bart-base: its "normalize_embedding": true names the layernorm_embedding every
    // BART has (Marian refuses it: Marian has none).
    const Architecture bart = parseArchitecture(R"({
        "activation_function": "gelu", "add_bias_logits": false, "add_final_layer_norm": false,
        "architectures": ["BartModel"], "bos_token_id": 0, "d_model": 768,
        "decoder_attention_heads": 12, "decoder_ffn_dim": 3072, "decoder_layers": 6,
        "decoder_start_token_id": 2, "encoder_attention_heads": 12, "encoder_ffn_dim": 3072,
        "encoder_layers": 6, "eos_token_id": 2, "forced_bos_token_id": 0,
        "forced_eos_token_id": 2, "is_encoder_decoder": true, "max_position_embeddings": 1024,
        "model_type": "bart", "normalize_before": false, "normalize_embedding": true,
        "num_hidden_layers": 6, "pad_token_id": 1, "scale_embedding": false,
        "vocab_size": 50265})",
                                                "bart-base/config.json");
    EXPECT_EQ(bart.family, "bart");
    EXPECT_TRUE(bart.isEncoderDecoder());
    EXPECT_EQ(bart.headDim, 64);
    EXPECT_EQ(bart.contextLength, 1024);
    EXPECT_EQ(bart.positionOffset, 2);
    EXPECT_EQ(bart.decoderStartToken, 2);
    EXPECT_EQ(bart.eosToken, 2);
    EXPECT_FLOAT_EQ(bart.embeddingScale, 1.0f);
    EXPECT_EQ(bart.activation, Activation::GeluExact);
    EXPECT_FALSE(bart.preNorm);
    EXPECT_THROW(parseArchitecture(R"({"model_type": "bart", "d_model": 16, "vocab_size": 10,
        "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
        "decoder_attention_heads": 2, "encoder_ffn_dim": 32, "decoder_ffn_dim": 32,
        "normalize_before": true})",
                                   "mbart-style/config.json"),
                 Error);
}

// T5's buckets, as Hugging Face's _relative_position_bucket gives them.
TEST(FamilyConfigs, T5RelativePositionBuckets) {
    // Bidirectional, 32 buckets: 16 per direction, 8 exact offsets, then logarithmic to 128.
    EXPECT_EQ(relativePositionBucket(0, true, 32, 128), 0);
    EXPECT_EQ(relativePositionBucket(-3, true, 32, 128), 3);
    EXPECT_EQ(relativePositionBucket(3, true, 32, 128), 19);
    EXPECT_EQ(relativePositionBucket(-8, true, 32, 128), 8);
    EXPECT_EQ(relativePositionBucket(-1000, true, 32, 128), 15);
    EXPECT_EQ(relativePositionBucket(1000, true, 32, 128), 31);
    // Causal: only the past counts, 16 exact offsets, future offsets are bucket 0.
    EXPECT_EQ(relativePositionBucket(5, false, 32, 128), 0);
    EXPECT_EQ(relativePositionBucket(-15, false, 32, 128), 15);
    EXPECT_EQ(relativePositionBucket(-16, false, 32, 128), 16);
    EXPECT_EQ(relativePositionBucket(-1000, false, 32, 128), 31);
}

}  // namespace
}  // namespace qkv
