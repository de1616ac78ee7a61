// Gemma 4: the global layers' own head width and key/value heads, K = V by design (no v_proj:
// the values are the key projection itself), v_norm on every layer's values, and what the
// configurations mean there. Exactness against Hugging Face is ForwardReference's
// (gemma4-random-tiny, the learned configuration).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/analysis/head_metrics.h"
#include "core/io/safetensors.h"
#include "core/model/applicable_configurations.h"
#include "core/model/forward.h"
#include "core/model/model_family.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

class Gemma4Shared : public testing::Test {
  protected:
    void SetUp() override {
        QKV_REQUIRE_SHARED(shared);
        folder = shared / "models" / "gemma4-random-tiny";
        model = Model::open(folder);
        backend = createCpuBackend();
    }
    ForwardResult run(const std::string& configuration) const {
        ForwardRequest request;
        request.ids = {2, 17, 401, 33, 902, 250, 77, 5};
        request.config = WConfiguration::parse(configuration);
        request.logits = LogitsMode::LastPosition;
        return ForwardPass(*model, *backend).run(request);
    }
    std::filesystem::path folder;
    std::unique_ptr<Model> model;
    std::unique_ptr<Backend> backend;
};

TEST_F(Gemma4Shared, GlobalLayersHaveTheirOwnHeadsAndNoValueProjection) {
    const Architecture& c = model->architecture();
    // config.json: sliding layers 2 KV heads of 16, full ones (1 and 3) 1 KV head of 32.
    for (int l = 0; l < c.layers; ++l) {
        const bool global = l % 2 == 1;
        EXPECT_EQ(c.headDimOf(l), global ? 32 : 16) << l;
        EXPECT_EQ(c.kvHeadsOf(l), global ? 1 : 2) << l;
        EXPECT_EQ(c.kindOf(l).valueIsKey, global) << l;
        EXPECT_EQ(c.describeLayer(l).find("W_V = W_K (tied by the model)") != std::string::npos,
                  global)
            << c.describeLayer(l);
    }
    EXPECT_EQ(c.valueIsKeyLayers(), 2);
    const ForwardResult r = run("learned");
    EXPECT_EQ(r.trace.query(0, 3).cols(), 16);
    EXPECT_EQ(r.trace.query(1, 3).cols(), 32);
    EXPECT_EQ(r.trace.layers()[1].key.cols(), 32);    // one KV head
    EXPECT_EQ(r.trace.layers()[0].value.cols(), 32);  // two of 16
    // The analysis reads the same blocks: a global layer's W_V is its W_K, in place.
    for (int h = 0; h < c.heads; ++h) {
        const WConfiguration learned;
        const MatrixView k = headProjection(*model, learned, 1, h, Projection::Key).view;
        const MatrixView v = headProjection(*model, learned, 1, h, Projection::Value).view;
        EXPECT_EQ(k.data, v.data);
        EXPECT_EQ(v.cols, 32);
        EXPECT_NE(headProjection(*model, learned, 0, h, Projection::Key).view.data,
                  headProjection(*model, learned, 0, h, Projection::Value).view.data);
    }
}

// v_norm has no weights: every value head of every token has mean square m / (m + eps) for its
// raw mean square m — just below one (the random weights' m is about 0.01, so 1e-4 below), never
// above but for float32 rounding.
TEST_F(Gemma4Shared, ValuesAreNormedWithoutWeights) {
    const ForwardResult r = run("learned");
    for (int l = 0; l < r.trace.layerCount(); ++l)
        for (int h = 0; h < r.trace.headCount(l); ++h) {
            const ConstMatrixMap v = r.trace.value(l, h);
            for (Eigen::Index i = 0; i < v.rows(); ++i) {
                const double meanSquare = v.row(i).squaredNorm() / v.cols();
                EXPECT_GT(meanSquare, 0.99) << "layer " << l << " head " << h << " token " << i;
                EXPECT_LT(meanSquare, 1.0 + 1e-5) << "layer " << l << " head " << h;
            }
        }
}

// The shared model's global layers (1 and 3) alone, as layers 0 and 1 of a model of two global
// layers: a Gemma 4 whose every layer has W_V = W_K.
std::filesystem::path writeGlobalLayersOnly(const std::filesystem::path& source,
                                            const std::filesystem::path& dir) {
    auto store = TensorStore::openFolder(source);
    std::map<std::string, test::FixtureTensor> tensors;
    for (const std::string& name : store->names()) {
        std::string renamed = name;
        for (const auto& [from, to] :
             {std::pair{"layers.1.", "layers.0."}, {"layers.3.", "layers.1."}})
            if (name.find(from) != std::string::npos)
                renamed.replace(name.find(from), std::string(from).size(), to);
        if (renamed == name && name.find("layers.") != std::string::npos) continue;  // 0 and 2
        const TensorInfo& info = *store->find(name);
        const float* values = store->floats(info);
        tensors[renamed] = {info.shape, std::vector<float>(values, values + info.elementCount())};
    }
    test::writeSafetensors(dir / "model.safetensors", tensors);
    std::ifstream in(source / "config.json");
    nlohmann::json config = nlohmann::json::parse(in);
    config["num_hidden_layers"] = 2;
    config["layer_types"] = {"full_attention", "full_attention"};
    test::writeText(dir / "config.json", config.dump());
    return dir;
}

// tied-kv fills the value slot from W_K: where the model ties them itself nothing changes, bit
// for bit; the other configurations do change the model.
TEST_F(Gemma4Shared, TiedKvChangesNothingWhereTheModelTiesThem) {
    const test::TempDir dir;
    model = Model::open(writeGlobalLayersOnly(folder, dir.path()));
    ASSERT_EQ(model->architecture().valueIsKeyLayers(), 2);
    const ForwardResult learned = run("learned");
    const ForwardResult tied = run("tied-kv");
    for (int l = 0; l < 2; ++l) {
        EXPECT_EQ(learned.trace.layers()[l].value, tied.trace.layers()[l].value) << l;
        for (int h = 0; h < model->architecture().heads; ++h)
            EXPECT_EQ(learned.trace.probabilities(l, h), tied.trace.probabilities(l, h)) << l;
    }
    EXPECT_EQ(learned.logits, tied.logits);
    EXPECT_NE(run("shared-qk").logits, learned.logits);
    // In the full model the local layers' values do change under tied-kv.
    model = Model::open(folder);
    EXPECT_NE(run("learned").trace.layers()[0].value, run("tied-kv").trace.layers()[0].value);
    for (const char* configuration : {"single-w", "sym-scores"})
        EXPECT_NO_THROW(run(configuration)) << configuration;
}

// What the reader does not compute is refused naming the config key.
TEST(Gemma4Config, UnsupportedPartsAreRefusedByName) {
    QKV_REQUIRE_SHARED(shared);
    std::ifstream in(shared / "models" / "gemma4-random-tiny" / "config.json");
    const nlohmann::json base = nlohmann::json::parse(in);
    EXPECT_NO_THROW(parseArchitecture(base.dump(), "config.json"));
    const std::vector<std::pair<nlohmann::json, std::string>> cases = {
        {{{"hidden_size_per_layer_input", 256}}, "\"hidden_size_per_layer_input\""},
        {{{"num_kv_shared_layers", 2}}, "\"num_kv_shared_layers\""},
        {{{"enable_moe_block", true}}, "\"enable_moe_block\""},
        {{{"num_global_key_value_heads", 3}}, "not a multiple of 3 key/value heads"},
        {{{"layer_types", {"full_attention"}}}, "\"layer_types\" lists 1 layers"},
    };
    for (const auto& [patch, expected] : cases) {
        nlohmann::json doc = base;
        doc.merge_patch(patch);
        try {
            parseArchitecture(doc.dump(), "config.json");
            ADD_FAILURE() << patch.dump() << " opened";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
        }
    }
    // Absent (HF's default 256 per-layer inputs) is refused too; 0 opens.
    nlohmann::json absent = base;
    absent.erase("hidden_size_per_layer_input");
    EXPECT_THROW(parseArchitecture(absent.dump(), "config.json"), Error);
}

}  // namespace
}  // namespace qkv
