// The safetensors writer against the project's validating reader: layout, alignment, metadata,
// values, and refusal of bad input without touching an existing file.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/io/safetensors.h"
#include "core/io/safetensors_writer.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"

namespace qkv {
namespace {

std::string headerOf(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::uint64_t length = 0;
    in.read(reinterpret_cast<char*>(&length), sizeof length);
    std::string header(length, '\0');
    in.read(header.data(), static_cast<std::streamsize>(length));
    return header;
}

TEST(TrainSafetensorsWriter, WritesWhatTheReaderReads) {
    test::TempDir dir;
    const std::vector<float> a{1, 2, 3, 4, 5, 6}, b{-1.5f}, c{7, 8, 9};
    const auto file = dir.path() / "t.safetensors";
    qkv::writeSafetensors(
        file, {{"z.weight", {2, 3}, a.data()}, {"a.bias", {1}, b.data()}, {"m", {3}, c.data()}},
        {{"format", "pt"}, {"qkvlab_config", "{\"x\":1}"}});
    SafetensorsFile read(file);
    EXPECT_EQ(read.metadata().at("format"), "pt");
    EXPECT_EQ(read.metadata().at("qkvlab_config"), "{\"x\":1}");
    ASSERT_EQ(read.tensors().size(), 3u);
    const TensorInfo& z = read.tensors().at("z.weight");
    EXPECT_EQ(z.dtype, DType::F32);
    EXPECT_EQ(z.shape, (std::vector<std::int64_t>{2, 3}));
    EXPECT_EQ(std::memcmp(z.data, a.data(), sizeof(float) * a.size()), 0);
    EXPECT_EQ(reinterpret_cast<const float*>(read.tensors().at("a.bias").data)[0], -1.5f);

    const std::string header = headerOf(file);
    EXPECT_EQ(header.size() % 8, 0u);  // data region 8-byte aligned
    EXPECT_EQ(header.rfind("{\"__metadata__\"", 0), 0u) << header;
    // Tensors in name order, data packed in the same order.
    const auto doc = nlohmann::json::parse(header);
    EXPECT_EQ(doc["a.bias"]["data_offsets"], (std::vector<int>{0, 4}));
    EXPECT_EQ(doc["m"]["data_offsets"], (std::vector<int>{4, 16}));
    EXPECT_EQ(doc["z.weight"]["data_offsets"], (std::vector<int>{16, 40}));
    EXPECT_LT(header.find("\"a.bias\""), header.find("\"m\""));
    EXPECT_LT(header.find("\"m\""), header.find("\"z.weight\""));
}

TEST(TrainSafetensorsWriter, BadInputLeavesTheOldFile) {
    test::TempDir dir;
    const auto file = dir.path() / "t.safetensors";
    const std::vector<float> a{1};
    qkv::writeSafetensors(file, {{"a", {1}, a.data()}});
    const auto before = std::filesystem::file_size(file);
    EXPECT_THROW(qkv::writeSafetensors(file, {{"a", {1}, a.data()}, {"a", {1}, a.data()}}), Error);
    EXPECT_THROW(qkv::writeSafetensors(file, {{"", {1}, a.data()}}), Error);
    EXPECT_THROW(qkv::writeSafetensors(file, {{"__metadata__", {1}, a.data()}}), Error);
    EXPECT_THROW(
        qkv::writeSafetensors(dir.path() / "missing" / "t.safetensors", {{"a", {1}, a.data()}}),
        Error);
    EXPECT_EQ(std::filesystem::file_size(file), before);
    EXPECT_NO_THROW(SafetensorsFile{file});
}

}  // namespace
}  // namespace qkv
