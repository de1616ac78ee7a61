// Every supported family: stored dtypes (below) and config.json errors that name the key or
// tensor at fault (at the end).
// The stored-dtype check: F16 and BF16 files give the attention and logits of a float32 file
// holding the same rounded values, so binders read whatever dtype the safetensors store.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/io/safetensors.h"
#include "core/model/forward.h"
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
        const auto ids = test::loadReference(folder / "hf_reference.json").sentences[0].ids;
        for (Stored dtype : {Stored::F16, Stored::BF16}) {
            SCOPED_TRACE(name + (dtype == Stored::F16 ? " F16" : " BF16"));
            test::TempDir half, full;
            writeRounded(folder, dtype, half.path(), full.path());
            // Kept in the stored type: the matrices view the file, none is widened whole.
            const ElementType stored = dtype == Stored::F16 ? ElementType::F16 : ElementType::BF16;
            const auto halfModel = Model::open(half.path());
            for (const LayerWeights& layer : halfModel->weights().layers)
                for (const MatrixView* w : {&layer.query.weight, &layer.key.weight,
                                            &layer.value.weight, &layer.output.weight})
                    ASSERT_EQ(w->type, stored);
            EXPECT_EQ(halfModel->weights().tokenEmbedding.type, stored);
            const ForwardResult a = run(half.path(), ids);
            const ForwardResult b = run(full.path(), ids);
            // The same float32 values, but the half files' weights stay compact and are widened
            // and multiplied panel by panel, the float32 file's as whole matrices: OpenBLAS sums
            // in another order, a few ulps apart, which stories260K's sharp trained heads amplify
            // (1.7e-6 measured alone, 1.25e-5 once under a parallel ctest).
            constexpr float kTolerance = 3e-5f;
            for (int l = 0; l < a.trace.layerCount(); ++l)
                for (int h = 0; h < a.trace.headCount(); ++h)
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
    try {
        Model::open(dir.path());
    } catch (const Error& e) {
        return e.what();
    }
    return "(opened)";
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
        {"opt-random-tiny", "word_embed_proj_dim", 32, "word_embed_proj_dim"},
        {"phi3-random-tiny", "rope_scaling", nlohmann::json{{"type", "longrope"}}, "rope_scaling"},
        {"qwen2-random-tiny", "use_sliding_window", true, "use_sliding_window"},
        {"roberta-random-tiny", "hidden_size", 32,
         "'roberta.embeddings.word_embeddings.weight' has shape [1024, 64], expected [1024, 32]"},
        {"gemma2-random-tiny", "head_dim", 16,
         "q_proj.weight' has shape [128, 64], expected [64, 64]"},
        {"phi3-random-tiny", "intermediate_size", 64, "gate_up_proj.weight' has shape"},
        {"gpt_neox-random-tiny", "num_attention_heads", 5, "not divisible by 5 heads"},
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

}  // namespace
}  // namespace qkv
