// The Hub's FP8 checkpoints (DeepSeek-V3/R1, Kimi K2, Qwen3 "-FP8"): e4m3 codes, 128 x 128
// block scales with ragged last blocks, the config's layout refused by name where it is another,
// and Kimi K2 read as the DeepSeek-V3 network it is. The forwards themselves are checked against
// transformers by ForwardReference on deepseek_v3fp8- and qwen3fp8-random-tiny.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/backend/matrix_view.h"
#include "core/format/fp8.h"
#include "core/model/model.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

// As ForwardReference: float32 against transformers' float64 reference.
constexpr double kAttentionTolerance = 1e-4;
constexpr double kLogitTolerance = 5e-4;

TEST(Fp8Codes, DecodeAsTheOcpE4m3fnTable) {
    EXPECT_EQ(e4m3ToFloat(0x00), 0.0f);
    EXPECT_TRUE(std::signbit(e4m3ToFloat(0x80)));  // -0: tiny negative weights round to it
    EXPECT_EQ(e4m3ToFloat(0x01), 0.001953125f);    // the smallest subnormal, 2^-9
    EXPECT_EQ(e4m3ToFloat(0x07), 0.013671875f);    // the largest subnormal, 7 · 2^-9
    EXPECT_EQ(e4m3ToFloat(0x08), 0.015625f);       // the smallest normal, 2^-6
    EXPECT_EQ(e4m3ToFloat(0x38), 1.0f);
    EXPECT_EQ(e4m3ToFloat(0x3d), 1.625f);
    EXPECT_EQ(e4m3ToFloat(0x7e), 448.0f);  // the largest finite
    EXPECT_EQ(e4m3ToFloat(0xfe), -448.0f);
    EXPECT_EQ(e4m3ToFloat(0x78), 256.0f);  // no infinities: exponent 15 is finite
    EXPECT_TRUE(std::isnan(e4m3ToFloat(0x7f)));
    EXPECT_TRUE(std::isnan(e4m3ToFloat(0xff)));
}

// A 130 x 257 weight: blocks of 128 with a ragged last row of blocks (2 rows) and column (1).
// Every element must take its own block's scale, wherever a run of elements starts and ends.
TEST(Fp8Blocks, EachElementTakesItsBlocksScaleRaggedBlocksIncluded) {
    constexpr int rows = 130, cols = 257;
    std::vector<std::uint8_t> codes(rows * cols);
    for (size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<std::uint8_t>((i * 37) % 0x7e);
    const std::int64_t scaleRows = fp8ScaleRows(rows), scaleCols = fp8ScaleCols(cols);
    ASSERT_EQ(scaleRows, 2);
    ASSERT_EQ(scaleCols, 3);
    const std::vector<float> scales = {0.5f, 3.0f, 0.1f, 7.0f, 1e-3f, 2.0f};
    auto expected = [&](int r, int c) {
        return e4m3ToFloat(codes[r * cols + c]) * scales[r / 128 * scaleCols + c / 128];
    };
    std::vector<float> all(codes.size());
    decodeFp8Blocks(codes.data(), scales.data(), cols, 0, codes.size(), all.data());
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            ASSERT_EQ(all[r * cols + c], expected(r, c)) << r << "," << c;
    // A view of the transpose (a Linear weight as the forward sees it), a few columns in: runs
    // that start inside a block and cross rows.
    const MatrixView stored{codes.data(),           rows,    cols, cols,          1,
                            ElementType::Fp8Blocks, nullptr, 0,    scales.data(), cols};
    const MatrixView linear = stored.transposed().columns(127, 3);
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < cols; ++r) ASSERT_EQ(linear.at(r, c), expected(127 + c, r));
    std::vector<float> run(300);
    stored.rowRange(1, 129).widenRun(250, run.size(), run.data());
    for (size_t i = 0; i < run.size(); ++i) {
        const size_t at = cols + 250 + i;
        ASSERT_EQ(run[i], expected(static_cast<int>(at / cols), static_cast<int>(at % cols)));
    }
}

// A folder of one shared FP8 model with its config edited.
std::filesystem::path editedFp8(const std::filesystem::path& shared, const test::TempDir& dir,
                                const std::function<void(nlohmann::json&)>& edit) {
    return test::folderWithEditedConfig(shared / "models" / "qwen3fp8-random-tiny", dir.path(),
                                        edit);
}

TEST(Fp8Layouts, OtherFp8LayoutsAreRefusedByName) {
    QKV_REQUIRE_SHARED(shared);
    const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> cases = {
        {[](nlohmann::json& c) { c["quantization_config"]["fmt"] = "e5m2"; },
         "FP8 weights in format \"e5m2\" are not supported"},
        {[](nlohmann::json& c) {
             c["quantization_config"]["weight_block_size"] = {64, 64};
         },
         "FP8 weights in blocks of 64 x 64 are not supported"},
        {[](nlohmann::json& c) { c["quantization_config"]["activation_scheme"] = "static"; },
         "FP8 weights with \"static\" activation scales are not supported"},
        {[](nlohmann::json& c) { c.erase("quantization_config"); },
         "is stored as float8, but config.json has no quantization_config"},
    };
    for (const auto& [edit, message] : cases) {
        test::TempDir dir;
        const std::string error = test::openingError(editedFp8(shared, dir, edit));
        EXPECT_NE(error.find(message), std::string::npos) << error;
    }
}

TEST(Fp8Layouts, AWeightWithoutItsBlockScalesIsRefused) {
    QKV_REQUIRE_SHARED(shared);
    // The file's header, with one scale tensor renamed away.
    const auto folder = shared / "models" / "qwen3fp8-random-tiny";
    std::ifstream in(folder / "model.safetensors", std::ios::binary);
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
    std::uint64_t headerSize;
    std::memcpy(&headerSize, bytes.data(), sizeof headerSize);
    std::string header(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(headerSize));
    const std::string scale = "model.layers.1.self_attn.k_proj.weight_scale_inv";
    const auto at = header.find("\"" + scale + "\"");
    ASSERT_NE(at, std::string::npos);
    header.replace(at + 1, scale.size(), std::string(scale).replace(0, 5, "xxxxx"));
    test::TempDir dir;
    test::writeRawSafetensors(
        dir.path() / "model.safetensors", header,
        std::vector<std::uint8_t>(bytes.begin() + 8 + static_cast<long>(headerSize), bytes.end()));
    std::filesystem::copy_file(folder / "config.json", dir.path() / "config.json");
    const std::string error = test::openingError(dir.path());
    EXPECT_NE(error.find("model.layers.1.self_attn.k_proj.weight [128, 256] F8_E4M3"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("has no block scales"), std::string::npos) << error;
}

// Kimi K2's config names model_type kimi_k2 for DeepSeek-V3's network (its model card says to
// rename it to deepseek_v3 where a framework does not know it): the same reference holds.
TEST(KimiK2, OpensAsDeepSeekV3) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "deepseek_v3fp8-random-tiny";
    test::TempDir dir;
    const auto edited = test::folderWithEditedConfig(
        folder, dir.path(), [](nlohmann::json& c) { c["model_type"] = "kimi_k2"; });
    const auto model = Model::open(edited);
    EXPECT_EQ(model->architecture().family, "deepseek");
    EXPECT_EQ(model->architecture().quantisation, "fp8");
    test::expectOriginalResults(*model, test::loadReference(folder / "hf_reference.json"),
                                kAttentionTolerance, kLogitTolerance);
}

}  // namespace
}  // namespace qkv
