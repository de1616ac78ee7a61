// Llama 4's config as the Hub's releases write it: attn_temperature_tuning as a number (Scout's
// 4), an empty no_rope_layers (the NoPE layers then follow no_rope_layer_interval), no
// layer_types (chunked exactly on the RoPE layers) and no moe_layers (every
// interleave_moe_layer_step-th layer). Each variant of the tiny reference's config describes the
// same model, so transformers' reference holds for it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/model/model.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

// As ForwardReference: float32 against transformers' float64 reference.
constexpr double kAttentionTolerance = 1e-4;
constexpr double kLogitTolerance = 5e-4;

TEST(Llama4Config, TheHubsSpellingsReadAsTheSameModel) {
    QKV_REQUIRE_SHARED(shared);
    // llama4-random-tiny: RoPE on layers 0-2 (chunked), NoPE on 3; experts on layers 1 and 3.
    const auto folder = shared / "models" / "llama4-random-tiny";
    test::TempDir dir;
    const auto edited = test::folderWithEditedConfig(folder, dir.path(), [](nlohmann::json& c) {
        c["attn_temperature_tuning"] = 4;
        c["no_rope_layers"] = nlohmann::json::array();  // with no_rope_layer_interval 4
        c.erase("layer_types");
        c.erase("moe_layers");  // with interleave_moe_layer_step 2
    });
    const auto model = Model::open(edited);
    const Architecture& c = model->architecture();
    for (int l = 0; l < 4; ++l) {
        EXPECT_EQ(c.kindName(l), l < 3 ? "attention_chunked" : "attention") << l;
        EXPECT_EQ(c.rotaryOf(l) != nullptr, l < 3) << l;
        EXPECT_EQ(c.kindOf(l).experts, l % 2 == 1) << l;
        EXPECT_EQ(c.warmsQueries(l), l == 3) << l;
    }
    test::expectOriginalResults(*model, test::loadReference(folder / "hf_reference.json"),
                                kAttentionTolerance, kLogitTolerance);
}

TEST(Llama4Config, BadLayerListsAreNamed) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "llama4-random-tiny";
    const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> cases = {
        {[](nlohmann::json& c) {
             c["moe_layers"] = {1, 7};
         },
         "\"moe_layers\" names layer 7 of 4"},
        {[](nlohmann::json& c) {
             c["no_rope_layers"] = {1, 0};
         },
         "\"no_rope_layers\" names 2 layers of 4"},
        {[](nlohmann::json& c) { c["layer_types"] = {"chunked_attention"}; },
         "\"layer_types\" names 1 layers of 4"},
        {[](nlohmann::json& c) { c["attn_temperature_tuning"] = "yes"; },
         "\"attn_temperature_tuning\" must be true, false or a number"},
    };
    for (const auto& [edit, message] : cases) {
        test::TempDir dir;
        const std::string error =
            test::openingError(test::folderWithEditedConfig(folder, dir.path(), edit));
        EXPECT_NE(error.find(message), std::string::npos) << error;
    }
}

}  // namespace
}  // namespace qkv
