// The safetensors reader: valid files in every float dtype, and each way a file can be broken.
#include "core/io/safetensors.h"

#include <gtest/gtest.h>

#include <cstring>

#include "core/util/error.h"
#include "core/util/half.h"
#include "tests/support/fixture_writer.h"

namespace qkv {
namespace {

using test::TempDir;
using test::writeRawSafetensors;

std::vector<std::uint8_t> bytesOf(const std::vector<float>& values) {
    std::vector<std::uint8_t> out(values.size() * 4);
    std::memcpy(out.data(), values.data(), out.size());
    return out;
}

// Expects opening `file` to throw a qkv::Error whose message contains every fragment.
void expectOpenError(const std::filesystem::path& file, std::vector<std::string> fragments) {
    try {
        SafetensorsFile f(file);
        FAIL() << "expected an error for " << file;
    } catch (const Error& e) {
        for (const auto& fragment : fragments)
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
                << "message '" << e.what() << "' lacks '" << fragment << "'";
    }
}

// Expects a file of this header and data to be refused with every fragment in the message.
void expectHeaderRefused(const std::string& header, const std::vector<std::uint8_t>& data,
                         std::vector<std::string> fragments) {
    TempDir dir;
    writeRawSafetensors(dir.path() / "t.safetensors", header, data);
    expectOpenError(dir.path() / "t.safetensors", std::move(fragments));
}

TEST(Safetensors, ReadsFloat32InPlace) {
    TempDir dir;
    test::writeSafetensors(dir.path() / "m.safetensors",
                           {{"a", {{2, 3}, {1, 2, 3, 4, 5, 6}}}, {"b", {{1}, {-7.5f}}}});
    auto store = TensorStore::openFile(dir.path() / "m.safetensors");
    ASSERT_EQ(store->tensorCount(), 2u);
    const TensorInfo* a = store->find("a");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->shape, (std::vector<std::int64_t>{2, 3}));
    EXPECT_EQ(a->dtype, DType::F32);
    const float* values = store->floats(*a);
    EXPECT_EQ(values, reinterpret_cast<const float*>(a->data));  // no copy
    EXPECT_EQ(values[5], 6.0f);
    EXPECT_EQ(store->floats(*store->find("b"))[0], -7.5f);
    EXPECT_EQ(store->find("missing"), nullptr);
    EXPECT_EQ(store->totalBytes(), 28u);
}

TEST(Safetensors, ConvertsHalfAndBfloat16) {
    const std::vector<float> values = {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f};
    std::vector<std::uint8_t> data;
    for (float v : values) {
        std::uint16_t h = floatToF16(v);
        data.push_back(h & 0xFF);
        data.push_back(h >> 8);
    }
    for (float v : {1.0f, -3.0f, 0.15625f}) {
        std::uint16_t h = floatToBf16(v);
        data.push_back(h & 0xFF);
        data.push_back(h >> 8);
    }
    TempDir dir;
    writeRawSafetensors(dir.path() / "h.safetensors",
                        R"({"half":{"dtype":"F16","shape":[6],"data_offsets":[0,12]},)"
                        R"("brain":{"dtype":"BF16","shape":[3],"data_offsets":[12,18]}})",
                        data);
    auto store = TensorStore::openFile(dir.path() / "h.safetensors");
    const float* half = store->floats(*store->find("half"));
    for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(half[i], values[i]) << i;
    const float* brain = store->floats(*store->find("brain"));
    EXPECT_EQ(brain[0], 1.0f);
    EXPECT_EQ(brain[1], -3.0f);
    EXPECT_EQ(brain[2], 0.15625f);
}

TEST(Safetensors, UnalignedFloat32IsCopied) {
    TempDir dir;
    std::string header = R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    while ((8 + header.size()) % 4 != 1) header += ' ';  // data starts off a 4-byte boundary
    writeRawSafetensors(dir.path() / "u.safetensors", header, bytesOf({1.5f, 2.5f}));
    auto store = TensorStore::openFile(dir.path() / "u.safetensors");
    const TensorInfo* x = store->find("x");
    ASSERT_NE(reinterpret_cast<std::uintptr_t>(x->data) % alignof(float), 0u);
    const float* v = store->floats(*x);
    EXPECT_EQ(v[0], 1.5f);
    EXPECT_EQ(v[1], 2.5f);
}

TEST(Safetensors, KeepsMetadata) {
    TempDir dir;
    writeRawSafetensors(dir.path() / "m.safetensors",
                        R"({"__metadata__":{"format":"pt","seed":"7"},)"
                        R"("x":{"dtype":"F32","shape":[],"data_offsets":[0,4]}})",
                        bytesOf({3.0f}));
    SafetensorsFile f(dir.path() / "m.safetensors");
    EXPECT_EQ(f.metadata().at("seed"), "7");
    EXPECT_EQ(f.tensors().at("x").elementCount(), 1);
}

TEST(SafetensorsErrors, FileShorterThanHeaderLength) {
    TempDir dir;
    test::writeText(dir.path() / "t.safetensors", "abc");
    expectOpenError(dir.path() / "t.safetensors", {"t.safetensors", "shorter than"});
}

TEST(SafetensorsErrors, HeaderLengthBeyondFile) {
    TempDir dir;
    std::string bytes(8, '\0');
    bytes[0] = static_cast<char>(0xFF);
    bytes[1] = static_cast<char>(0xFF);  // 65535-byte header in a 10-byte file
    test::writeText(dir.path() / "t.safetensors", bytes + "{}");
    expectOpenError(dir.path() / "t.safetensors", {"header length 65535", "truncated"});
}

TEST(SafetensorsErrors, HugeHeaderLength) {
    TempDir dir;
    test::writeText(dir.path() / "t.safetensors", std::string(8, '\xff'));
    expectOpenError(dir.path() / "t.safetensors", {"runs past the end"});
}

TEST(SafetensorsErrors, InvalidJson) {
    expectHeaderRefused(R"({"x": {"dtype": )", {}, {"not valid JSON"});
    expectHeaderRefused("[1, 2]", {}, {"not a JSON object"});
}

TEST(SafetensorsErrors, OffsetsOutOfRange) {
    expectHeaderRefused(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
                        bytesOf({1, 2}),  // only 8 data bytes
                        {"'w'", "outside the 8-byte data region"});
    expectHeaderRefused(R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[8,4]}})",
                        bytesOf({1, 2}), {"'w'", "data_offsets [8, 4]"});
}

TEST(SafetensorsErrors, OverlappingTensors) {
    expectHeaderRefused(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                        R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},)"
                        R"("c":{"dtype":"F32","shape":[1],"data_offsets":[16,20]}})",
                        bytesOf({1, 2, 3, 4, 5}), {"'a'", "'b'", "overlap"});
}

TEST(SafetensorsErrors, ByteSizeMustMatchShape) {
    expectHeaderRefused(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
                        bytesOf({1, 2}), {"'w'", "occupies 8 bytes", "need 12"});
}

TEST(SafetensorsErrors, ShapeOverflow) {
    expectHeaderRefused(
        R"({"w":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,8]}})",
        bytesOf({1, 2}), {"'w'", "overflows"});
    expectHeaderRefused(R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})",
                        bytesOf({1, 2}), {"'w'", "not a non-negative integer"});
}

TEST(SafetensorsErrors, DTypes) {
    TempDir dir;
    expectHeaderRefused(R"({"w":{"dtype":"Q4_K","shape":[2],"data_offsets":[0,8]}})",
                        bytesOf({1, 2}), {"unknown dtype 'Q4_K'"});

    // Integer tensors (e.g. BERT's position_ids buffer) open, but are not weights.
    writeRawSafetensors(dir.path() / "t.safetensors",
                        R"({"ids":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})",
                        bytesOf({1, 2}));
    auto store = TensorStore::openFile(dir.path() / "t.safetensors");
    try {
        store->floats(*store->find("ids"));
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'ids' has dtype I64"), std::string::npos) << e.what();
    }
}

TEST(SafetensorsErrors, MalformedEntries) {
    for (const char* header : {R"({"w":3})", R"({"w":{"shape":[1],"data_offsets":[0,4]}})",
                               R"({"w":{"dtype":"F32","data_offsets":[0,4]}})",
                               R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0]}})",
                               R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,"4"]}})"}) {
        expectHeaderRefused(header, bytesOf({1}), {"'w'"});
    }
}

TEST(SafetensorsErrors, UnreadablePath) {
    expectOpenError("/nonexistent-folder/model.safetensors", {"cannot open"});
    TempDir dir;
    expectOpenError(dir.path(), {"not a regular file"});
}

TEST(ShardedCheckpoint, OpensEveryShardOnce) {
    TempDir dir;
    test::writeSafetensors(dir.path() / "model-00001-of-00002.safetensors", {{"a", {{1}, {1.0f}}}});
    test::writeSafetensors(dir.path() / "model-00002-of-00002.safetensors",
                           {{"b", {{1}, {2.0f}}}, {"c", {{1}, {3.0f}}}});
    test::writeText(dir.path() / "model.safetensors.index.json",
                    R"({"metadata":{"total_size":12},"weight_map":{)"
                    R"("a":"model-00001-of-00002.safetensors",)"
                    R"("b":"model-00002-of-00002.safetensors",)"
                    R"("c":"model-00002-of-00002.safetensors"}})");
    auto store = TensorStore::openFolder(dir.path());
    EXPECT_EQ(store->tensorCount(), 3u);
    EXPECT_EQ(store->floats(*store->find("c"))[0], 3.0f);
    EXPECT_EQ(store->names(), (std::vector<std::string>{"a", "b", "c"}));
}

void expectFolderError(const std::filesystem::path& dir, const std::string& fragment) {
    try {
        TensorStore::openFolder(dir);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

TEST(ShardedCheckpointErrors, BrokenIndexes) {
    TempDir dir;
    test::writeSafetensors(dir.path() / "s1.safetensors", {{"a", {{1}, {1.0f}}}});
    const auto index = dir.path() / "model.safetensors.index.json";
    test::writeText(index, R"({"weight_map":{"a":"missing.safetensors"}})");
    expectFolderError(dir.path(), "missing.safetensors: cannot open");
    test::writeText(index, R"({"weight_map":{"zzz":"s1.safetensors"}})");
    expectFolderError(dir.path(), "tensor 'zzz' is listed in shard 's1.safetensors'");
    test::writeText(index, R"({"weight_map":{"a":"../s1.safetensors"}})");
    expectFolderError(dir.path(), "not a plain file name");
    test::writeText(index, R"({"weight_map":{"a":7}})");
    expectFolderError(dir.path(), "not a file name");
    test::writeText(index, R"({"weight_map": )");
    expectFolderError(dir.path(), "not valid JSON");
    test::writeText(index, R"({"metadata":{}})");
    expectFolderError(dir.path(), "no \"weight_map\"");
}

TEST(ShardedCheckpointErrors, NoWeights) {
    TempDir dir;
    expectFolderError(dir.path(), "no model.safetensors");
    test::writeText(dir.path() / "pytorch_model.bin", "pickle");
    expectFolderError(dir.path(), "safetensors only");
}

TEST(Half, RoundTripsAndRounds) {
    for (std::uint32_t h = 0; h < 0x10000; ++h) {
        const float f = f16ToFloat(static_cast<std::uint16_t>(h));
        if (f != f) continue;  // NaN payloads need not round-trip
        EXPECT_EQ(floatToF16(f), h) << std::hex << h;
    }
    EXPECT_EQ(floatToF16(1.0f + 1.0f / 4096.0f), floatToF16(1.0f));  // ties to even
    EXPECT_EQ(floatToF16(1e6f), 0x7C00);                             // overflow to inf
    EXPECT_EQ(bf16ToFloat(floatToBf16(3.140625f)), 3.140625f);
}

}  // namespace
}  // namespace qkv
