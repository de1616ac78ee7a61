// llama.cpp's block formats, one block of each built byte by byte from the format's description
// (ggml-common.h's block layouts, gguf-py's dequantisation): chosen elements decode to values
// worked out by hand here, so a code, scale or bit read from the wrong place shows. The types in
// shared/gguf are also checked end to end against Hugging Face on their decoded weights
// (gguf_test.cpp).
#include "core/format/ggml_blocks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "core/backend/matrix_view.h"
#include "tests/support/mxfp4_fixture.h"

namespace qkv {
namespace {

constexpr std::uint16_t kOne = 0x3C00, kHalf = 0x3800, kQuarter = 0x3400, kEighth = 0x3000,
                        kMinusOne = 0xBC00, kTwo = 0x4000;  // float16 bits

struct Block {
    explicit Block(ElementType type) : type(type), bytes(blockFormat(type).bytes, 0) {}
    void half(std::size_t at, std::uint16_t bits) {
        bytes[at] = bits & 0xFF;
        bytes[at + 1] = bits >> 8;
    }
    std::vector<float> decode() const {
        std::vector<float> out(blockFormat(type).elements);
        decodeGgmlBlocks(type, bytes.data(), 0, out.size(), out.data());
        return out;
    }
    ElementType type;
    std::vector<std::uint8_t> bytes;
};

TEST(GgmlBlocks, ThirtyTwoElementTypes) {
    Block q40(ElementType::Q4_0);  // d, 16 bytes: element j low nibble, j + 16 high
    q40.half(0, kHalf);
    q40.bytes[2 + 3] = 0xE1;  // element 3: 1, element 19: 14
    EXPECT_EQ(q40.decode()[3], (1 - 8) * 0.5f);
    EXPECT_EQ(q40.decode()[19], (14 - 8) * 0.5f);
    EXPECT_EQ(q40.decode()[0], -8 * 0.5f);

    Block q41(ElementType::Q4_1);  // d, m, 16 bytes
    q41.half(0, kQuarter);
    q41.half(2, kMinusOne);
    q41.bytes[4 + 15] = 0x70;  // element 31: 7
    EXPECT_EQ(q41.decode()[31], 0.25f * 7 - 1.0f);
    EXPECT_EQ(q41.decode()[15], -1.0f);

    Block q50(ElementType::Q5_0);  // d, 32-bit fifth-bit mask, 16 bytes
    q50.half(0, kOne);
    q50.bytes[2 + 2] = 0x02;  // bit 17: element 17's fifth bit
    q50.bytes[6 + 1] = 0x50;  // element 17's nibble: 5
    EXPECT_EQ(q50.decode()[17], (5 + 16) - 16.0f);
    EXPECT_EQ(q50.decode()[1], -16.0f);

    Block q51(ElementType::Q5_1);  // d, m, mask, 16 bytes
    q51.half(0, kHalf);
    q51.half(2, kTwo);
    q51.bytes[4] = 0x01;  // element 0's fifth bit
    q51.bytes[8] = 0x03;  // element 0's nibble
    EXPECT_EQ(q51.decode()[0], 0.5f * 19 + 2.0f);

    Block q80(ElementType::Q8_0);  // d, 32 signed bytes
    q80.half(0, kEighth);
    q80.bytes[2 + 9] = static_cast<std::uint8_t>(-100);
    EXPECT_EQ(q80.decode()[9], -100 * 0.125f);

    Block nl(ElementType::IQ4_NL);  // d, 16 bytes of indices into the 16 levels
    nl.half(0, kHalf);
    nl.bytes[2 + 4] = 0xF0;  // element 4: level 0 (-127), element 20: level 15 (113)
    EXPECT_EQ(nl.decode()[4], -127 * 0.5f);
    EXPECT_EQ(nl.decode()[20], 113 * 0.5f);
}

// Element 200 of a 256-element block: the second half, third quarter of it, position 8, in
// sixteen-group 12 and 32-group 6.
TEST(GgmlBlocks, SuperBlockTypes) {
    Block q2(ElementType::Q2_K);  // scales[16] qs[64] d dmin
    q2.half(80, kOne);
    q2.half(82, kHalf);
    q2.bytes[12] = 0x35;       // group 12: scale 5, min 3
    q2.bytes[16 + 40] = 0x20;  // bits 4-5 of byte 32 + 8: code 2
    EXPECT_EQ(q2.decode()[200], 5.0f * 2 - 0.5f * 3);
    EXPECT_EQ(q2.decode()[201], -0.5f * 3);

    Block q3(ElementType::Q3_K);  // hmask[32] qs[64] scales[12] d
    q3.half(108, kHalf);
    q3.bytes[96 + 4] = 0x50;   // scale 12's low four bits: 5 (high nibble of byte 4)
    q3.bytes[96 + 8] = 0x80;   // its high two: 2 (bits 6-7 of byte 8): 37 - 32 = 5
    q3.bytes[32 + 40] = 0x30;  // code 3
    q3.bytes[8] = 0x40;        // the high-bit mask, bit 6 of byte 8: set, so no - 4
    EXPECT_EQ(q3.decode()[200], 0.5f * 5 * 3);
    EXPECT_EQ(q3.decode()[201], 0.5f * 5 * -4);  // code 0, mask clear

    Block q4(ElementType::Q4_K);  // d dmin scales[12] qs[128]
    q4.half(0, kHalf);
    q4.half(2, kQuarter);
    q4.bytes[4 + 10] = 0x21;    // group 6: scale low 1, min low 2
    q4.bytes[4 + 2] = 0x40;     // scale 6's high bits: 16
    q4.bytes[4 + 6] = 0x80;     // min 6's high bits: 32
    q4.bytes[16 + 104] = 0x07;  // byte 3 * 32 + 8, low nibble: 7
    EXPECT_EQ(q4.decode()[200], 0.5f * 17 * 7 - 0.25f * 34);

    Block q5(ElementType::Q5_K);  // d dmin scales[12] qh[32] qs[128]
    q5.bytes.assign(q5.bytes.size(), 0);
    q5.half(0, kHalf);
    q5.half(2, kQuarter);
    q5.bytes[4 + 10] = 0x21;
    q5.bytes[4 + 2] = 0x40;
    q5.bytes[4 + 6] = 0x80;
    q5.bytes[16 + 8] = 0x40;  // fifth bit of group 6, position 8
    q5.bytes[48 + 104] = 0x07;
    EXPECT_EQ(q5.decode()[200], 0.5f * 17 * 23 - 0.25f * 34);

    Block q6(ElementType::Q6_K);  // ql[128] qh[64] scales[16] d
    q6.half(208, kHalf);
    q6.bytes[72] = 0x90;        // low four bits: high nibble of ql[64 + 8]: 9
    q6.bytes[128 + 40] = 0x20;  // high two: bits 4-5 of qh[32 + 8]: 2
    q6.bytes[192 + 12] = static_cast<std::uint8_t>(-3);
    EXPECT_EQ(q6.decode()[200], 0.5f * -3 * (9 + 32 - 32));
    EXPECT_EQ(q6.decode()[201], 0.5f * -3 * -32);

    Block xs(ElementType::IQ4_XS);  // d scales_h(u16) scales_l[4] qs[128]
    xs.half(0, kHalf);
    xs.bytes[4 + 3] = 0x0B;    // group 6's low four bits: 11
    xs.half(2, 0x2000);        // its high two (bits 12-13): 2, so 11 + 32 - 32
    xs.bytes[8 + 104] = 0x03;  // level 3: -65
    EXPECT_EQ(xs.decode()[200], 0.5f * 11 * -65);
}

// ggml's MXFP4 block (gpt-oss's GGUF files): the E8M0 scale byte e, then 16 bytes holding element
// j in the low nibble of byte j and element j + 16 in its high nibble. Every code under every
// scale is sign × E2M1 value × 2^(e - 127) (the OCP definition, in double), as gpt-oss's own
// files' MXFP4 decodes; a block quantised independently (tests/support) and laid out this way
// decodes to the values it stands for.
TEST(GgmlBlocks, Mxfp4IsTheOcpValueOfEveryCodeUnderEveryScale) {
    static constexpr double kE2M1[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
    for (int scale = 0; scale < 255; ++scale)
        for (int byte = 0; byte < 256; ++byte) {
            Block b(ElementType::Mxfp4Blocks);
            b.bytes[0] = static_cast<std::uint8_t>(scale);
            b.bytes[1 + 5] = static_cast<std::uint8_t>(byte);
            const std::vector<float> out = b.decode();
            for (const auto& [element, code] : {std::pair{5, byte & 15}, {21, byte >> 4}}) {
                const double expected =
                    (code & 8 ? -1.0 : 1.0) * kE2M1[code & 7] * std::ldexp(1.0, scale - 127);
                const float wanted = std::fabs(expected) > std::numeric_limits<float>::max()
                                         ? std::copysign(INFINITY, expected)
                                         : static_cast<float>(expected);
                ASSERT_EQ(out[element], wanted) << "byte " << byte << " scale " << scale;
                // ggml's levels are integers: code 8 (-0) decodes to +0.
                ASSERT_EQ(std::signbit(out[element]), (code & 8) != 0 && (code & 7) != 0);
            }
            ASSERT_EQ(out[0], 0.0f);
        }
    float values[32];
    for (int j = 0; j < 32; ++j) values[j] = 0.37f * static_cast<float>(j - 13) / (j % 5 + 1);
    const test::Mxfp4Block packed = test::quantiseMxfp4Block(values);
    Block ggml(ElementType::Mxfp4Blocks);
    ggml.bytes[0] = packed.scale;
    for (int j = 0; j < 32; ++j) {  // gpt-oss packs element 2b and 2b + 1 into byte b
        const int code = packed.bytes[j / 2] >> (4 * (j % 2)) & 15;
        ggml.bytes[1 + j % 16] |= static_cast<std::uint8_t>(code << (j < 16 ? 0 : 4));
    }
    const std::vector<float> out = ggml.decode();
    for (int j = 0; j < 32; ++j) EXPECT_EQ(out[j], packed.values[j]) << j;
}

// A run that starts and ends inside blocks, through a view that starts inside one (a head's rows
// of an output projection).
TEST(GgmlBlocks, RunsAndViewsStartAnywhere) {
    std::vector<std::uint8_t> blocks(3 * 34);
    for (int b = 0; b < 3; ++b) {
        blocks[b * 34] = 0x00;
        blocks[b * 34 + 1] = 0x3C;  // d = 1
        for (int j = 0; j < 32; ++j) blocks[b * 34 + 2 + j] = static_cast<std::uint8_t>(b * 32 + j);
    }
    std::vector<float> out(50);
    decodeGgmlBlocks(ElementType::Q8_0, blocks.data(), 20, 50, out.data());
    for (int i = 0; i < 50; ++i) EXPECT_EQ(out[i], 20 + i);
    // 96 elements as a 96 x 1 column; rows 40.. start inside the second block.
    const MatrixView column{blocks.data(), 96, 1, 1, 96, ElementType::Q8_0};
    const MatrixView tail = column.rowRange(40, 30);
    EXPECT_EQ(tail.at(0, 0), 40.0f);
    EXPECT_EQ(tail.at(29, 0), 69.0f);
    float run[5];
    tail.widenRun(20, 5, run);
    EXPECT_EQ(run[4], 64.0f);
}

}  // namespace
}  // namespace qkv
