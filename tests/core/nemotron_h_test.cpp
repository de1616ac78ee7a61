// Nemotron-H's configs as the Hub writes them: the block pattern as hybrid_override_pattern (M,
// E, *, -) instead of layers_block_type, and time_step_limit with Python's bare Infinity.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/model/model.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

// As ForwardReference: float32 against transformers' float64 reference.
constexpr double kAttentionTolerance = 1e-4;
constexpr double kLogitTolerance = 1e-4;

TEST(NemotronHConfig, TheHubsBlockPatternReadsAsItsBlockTypes) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "nemotron_h-random-tiny";
    test::TempDir dir;
    const auto edited = test::folderWithEditedConfig(folder, dir.path(), [](nlohmann::json& c) {
        c.erase("layers_block_type");  // mamba2, moe, mamba2, attention, mlp
        c["hybrid_override_pattern"] = "MEM*-";
        c["num_hidden_layers"] = 5;
    });
    const auto model = Model::open(edited);
    const Architecture& c = model->architecture();
    ASSERT_EQ(c.layers, 5);
    EXPECT_EQ(c.kindName(0), "mamba2");
    EXPECT_EQ(c.kindName(1), "moe");
    EXPECT_EQ(c.kindName(3), "attention");
    EXPECT_EQ(c.kindName(4), "mlp");
    test::expectOriginalResults(*model, test::loadReference(folder / "hf_reference.json"),
                                kAttentionTolerance, kLogitTolerance);
}

TEST(NemotronHConfig, PythonsBareInfinityOpens) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "nemotron_h-random-tiny";
    std::ifstream in(folder / "config.json");
    nlohmann::json doc = nlohmann::json::parse(in);
    doc["time_step_limit"] = {0.0, "@inf@"};
    std::string config = doc.dump(2);
    const std::string placeholder = "\"@inf@\"";
    config.replace(config.find(placeholder), placeholder.size(), "Infinity");  // as json.dump
    test::TempDir dir;
    test::writeText(dir.path() / "config.json", config);
    std::filesystem::create_symlink(folder / "model.safetensors", dir.path() / "model.safetensors");
    const auto model = Model::open(dir.path());
    EXPECT_EQ(model->architecture().layers, 5);
}

}  // namespace
}  // namespace qkv
