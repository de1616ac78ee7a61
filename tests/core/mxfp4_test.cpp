// MXFP4 weights (gpt-oss's experts): every code under every scale decodes to sign × E2M1 value ×
// 2^(scale - 127); blocks packed by an independent OCP quantiser (tests/support) decode to the
// values they stand for; views split on whole blocks; the CPU's linear on an MXFP4 weight equals
// the one on the same values in BF16; and a gpt-oss checkpoint with MXFP4 experts computes the
// attention of its dequantised float32 twin.
#include "core/format/mxfp4.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "core/backend/backend.h"
#include "core/backend/few_rows_gemm.h"
#include "core/model/forward.h"
#include "core/util/half.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/mxfp4_fixture.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

// The OCP definition, in double: sign bit 8, E2M1 codes 0-7.
double expectedValue(int nibble, int scale) {
    static constexpr double kE2M1[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
    return (nibble & 8 ? -1.0 : 1.0) * kE2M1[nibble & 7] * std::ldexp(1.0, scale - 127);
}

TEST(Mxfp4, EveryCodeUnderEveryScaleDecodesExactly) {
    for (int scale = 0; scale < 255; ++scale) {
        const auto s = static_cast<std::uint8_t>(scale);
        for (int byte = 0; byte < 256; ++byte) {
            const std::vector<std::uint8_t> block(16, static_cast<std::uint8_t>(byte));
            float out[32];
            decodeMxfp4(block.data(), &s, 0, 32, out);
            // The even element is the low nibble.
            for (int i : {0, 1}) {
                const double expected = expectedValue(i == 0 ? byte & 15 : byte >> 4, scale);
                if (std::fabs(expected) > std::numeric_limits<float>::max())  // 6 · 2^126
                    ASSERT_EQ(out[i], expected > 0 ? INFINITY : -INFINITY) << byte;
                else
                    ASSERT_EQ(out[i], expected) << byte << " scale " << scale;
            }
            ASSERT_EQ(std::signbit(out[0]), (byte & 8) != 0);
            ASSERT_EQ(mxfp4At(block.data(), &s, 31), out[31]);
        }
    }
    const std::uint8_t nan = 0xFF, block[16] = {0x21};
    EXPECT_TRUE(std::isnan(mxfp4At(block, &nan, 0)));  // E8M0's 0xFF is NaN, not infinity
}

TEST(Mxfp4, AnIndependentlyPackedBlockDecodesToItsValues) {
    // By hand: the largest magnitude 6 gives scale 2^0 (byte 127); 1 is code 2, -0.5 is 8 | 1,
    // 6 is code 7, 3 is code 5; element 2b is byte b's low nibble.
    float simple[32] = {1.0f, -0.5f, 6.0f, 3.0f};
    const test::Mxfp4Block hand = test::quantiseMxfp4Block(simple);
    EXPECT_EQ(hand.scale, 127);
    EXPECT_EQ(hand.bytes[0], 0x92);
    EXPECT_EQ(hand.bytes[1], 0x57);

    std::mt19937 engine(11);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> exponent(-20, 20);
    for (int trial = 0; trial < 200; ++trial) {
        float values[32];
        const float magnitude = std::ldexp(1.0f, exponent(engine));
        for (float& v : values) v = normal(engine) * magnitude;
        const test::Mxfp4Block block = test::quantiseMxfp4Block(values);
        float out[32];
        decodeMxfp4(block.bytes.data(), &block.scale, 0, 32, out);
        for (int i = 0; i < 32; ++i) ASSERT_EQ(out[i], block.values[i]) << trial << ", " << i;
    }
}

// Three blocks of random codes: runs from any element (odd starts, across block boundaries)
// equal element-wise decoding.
TEST(Mxfp4, RunsFromAnyElementEqualElementwiseDecoding) {
    std::vector<std::uint8_t> blocks(48), scales = {120, 127, 131};
    std::mt19937 engine(3);
    for (auto& b : blocks) b = static_cast<std::uint8_t>(engine());
    for (size_t first = 0; first < 96; first += 7)
        for (size_t count : {size_t{1}, size_t{2}, size_t{31}, 96 - first}) {
            if (first + count > 96) continue;
            std::vector<float> out(count);
            decodeMxfp4(blocks.data(), scales.data(), first, count, out.data());
            for (size_t i = 0; i < count; ++i)
                ASSERT_EQ(out[i], mxfp4At(blocks.data(), scales.data(),
                                          static_cast<std::ptrdiff_t>(first + i)))
                    << first << "+" << i;
        }
}

// A [k, n] weight as gpt-oss stores one expert: each column's k inputs in blocks of 32.
struct PackedWeight {
    std::vector<std::uint8_t> blocks, scales;
    std::vector<float> values;  // column-major, what the blocks stand for
    MatrixView view;
};

PackedWeight packColumns(int k, int n, unsigned seed) {
    PackedWeight w;
    std::mt19937 engine(seed);
    std::normal_distribution<float> normal(0.0f, 0.05f);
    for (int j = 0; j < n; ++j)
        for (int first = 0; first < k; first += 32) {
            float column[32];
            for (float& v : column) v = normal(engine);
            const test::Mxfp4Block block = test::quantiseMxfp4Block(column);
            w.scales.push_back(block.scale);
            w.blocks.insert(w.blocks.end(), block.bytes.begin(), block.bytes.end());
            w.values.insert(w.values.end(), block.values.begin(), block.values.end());
        }
    w.view = {w.blocks.data(), k, n, 1, k, ElementType::Mxfp4, w.scales.data()};
    return w;
}

TEST(Mxfp4, ViewsIndexElementsAndSplitOnWholeBlocks) {
    const PackedWeight w = packColumns(64, 3, 5);
    for (int r = 0; r < 64; ++r)
        for (int c = 0; c < 3; ++c) ASSERT_EQ(w.view.at(r, c), w.values[c * 64 + r]);
    const MatrixView right = w.view.columns(1, 2);
    EXPECT_EQ(right.at(5, 1), w.values[2 * 64 + 5]);
    const MatrixView lower = w.view.rowRange(32, 32);
    EXPECT_EQ(lower.at(3, 2), w.values[2 * 64 + 35]);
    EXPECT_THROW(w.view.rowRange(5, 8), Error);  // inside a block: no view can start there
}

TEST(Mxfp4, LinearEqualsTheSameValuesInBf16) {
    auto backend = createCpuBackend();
    // 3 blocks per column; 300 columns cross the 256-column panels; more tokens than the
    // registers' decoding takes (few_rows_gemm_test.cpp checks that one against double).
    const int m = kFewRowsGemmRows + 8, k = 96, n = 300;
    const PackedWeight w = packColumns(k, n, 9);
    std::vector<std::uint16_t> bf16(w.values.size());
    for (size_t i = 0; i < bf16.size(); ++i) {
        bf16[i] = floatToBf16(w.values[i]);
        ASSERT_EQ(bf16ToFloat(bf16[i]), w.values[i]);  // every MXFP4 value is a bfloat16
    }
    const MatrixView bf16View{bf16.data(), k, n, 1, k, ElementType::BF16};
    std::vector<float> x(static_cast<size_t>(m) * k);
    std::mt19937 engine(2);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& v : x) v = uniform(engine);
    auto run = [&](const MatrixView& view) {
        auto xt = backend->upload(x.data(), m, k);
        auto wt = backend->weight(view);
        auto y = backend->create(m, n);
        backend->linear(*xt, *wt, nullptr, *y);
        std::vector<float> out(static_cast<size_t>(m) * n);
        backend->download(*y, out.data());
        return out;
    };
    // The same widened panels through the same SGEMM calls: bit for bit.
    EXPECT_EQ(run(w.view), run(bf16View));
}

// gpt-oss-random-tiny with its experts packed in MXFP4, against its twin holding the values the
// blocks stand for in float32: the same model, so the same attention. The twins differ only in
// the order of the experts' float32 sums (the MXFP4 weight is decoded block by block in
// registers, the float32 one multiplied whole), a few ulps of O(1) activations: 1e-5 on
// probabilities in [0, 1].
constexpr double kTwinTolerance = 1e-5;

TEST(Mxfp4, GptOssExpertsInMxfp4ComputeTheirDequantisedTwin) {
    QKV_REQUIRE_SHARED(shared);
    test::TempDir packed, dequantised;
    test::writeMxfp4Twins(shared / "models" / "gpt_oss-random-tiny", packed.path(),
                          dequantised.path());
    const auto mxfp4 = Model::open(packed.path());
    const auto twin = Model::open(dequantised.path());
    EXPECT_EQ(mxfp4->parameterCount(), twin->parameterCount());
    auto backend = createCpuBackend();
    ForwardRequest request;
    request.ids = {5, 900, 17, 17, 263, 1, 40, 777, 3};
    auto largestGap = [&](const Model& x, const Model& y) {
        const ForwardResult a = ForwardPass(x, *backend).run(request);
        const ForwardResult b = ForwardPass(y, *backend).run(request);
        double worst = 0.0;
        for (int l = 0; l < b.trace.layerCount(); ++l)
            for (int h = 0; h < b.trace.headCount(l); ++h)
                worst = std::max<double>(worst,
                                         (a.trace.probabilities(l, h) - b.trace.probabilities(l, h))
                                             .cwiseAbs()
                                             .maxCoeff());
        return worst;
    };
    EXPECT_LE(largestGap(*mxfp4, *twin), kTwinTolerance);
    // The control: the unquantised original differs (quantisation moves each expert weight by
    // about 11 %), so a decoding error (nibble order, scale bias, a transposed block) would show.
    const auto original = Model::open(shared / "models" / "gpt_oss-random-tiny");
    EXPECT_GT(largestGap(*mxfp4, *original), 100 * kTwinTolerance);
}

// Rewrites one tensor's header entry of a safetensors file (same data, so the same byte count).
void editHeader(const std::filesystem::path& file, const std::string& tensor,
                const std::function<void(nlohmann::json&)>& edit) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i) length = length << 8 | static_cast<unsigned char>(bytes[i]);
    nlohmann::json header = nlohmann::json::parse(bytes.substr(8, length));
    edit(header.at(tensor));
    const std::string data = bytes.substr(8 + length);
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    test::writeRawSafetensors(file, text, std::vector<std::uint8_t>(data.begin(), data.end()));
}

TEST(Mxfp4, MalformedBlocksAreRefusedByName) {
    QKV_REQUIRE_SHARED(shared);
    const std::string scales = "model.layers.1.mlp.experts.down_proj_scales";
    const std::string blocks = "model.layers.1.mlp.experts.down_proj_blocks";
    struct Case {
        std::string tensor;
        std::function<void(nlohmann::json&)> edit;
        std::string message;
    };
    const Case cases[] = {{scales, [](nlohmann::json& t) { t["dtype"] = "I8"; },
                           "'" + scales + "' has dtype I8, expected U8"},
                          {blocks,  // the same bytes as 16-element blocks of 8 bytes
                           [](nlohmann::json& t) {
                               t["shape"][2] = t["shape"][2].get<int>() * 2;
                               t["shape"][3] = 8;
                           },
                           "tensor '" + blocks + "' has shape"}};
    for (const Case& c : cases) {
        test::TempDir packed, dequantised;
        test::writeMxfp4Twins(shared / "models" / "gpt_oss-random-tiny", packed.path(),
                              dequantised.path());
        editHeader(packed.path() / "model.safetensors", c.tensor, c.edit);
        const std::string error = test::openingError(packed.path());
        EXPECT_NE(error.find(c.message), std::string::npos) << error;
    }
}

}  // namespace
}  // namespace qkv
