// attention --npz: numpy's archive of the captured matrices, read back here with libzip and the
// .npy format's own header; the same numbers as --json, the ids, the input's record; a full disk
// is an error that leaves no file.
#include <gtest/gtest.h>
#include <zip.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/cli_run.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

struct NpyArray {
    std::string descr, shape;  // as the header writes them: "<f4", "(4, 16)"
    std::string bytes;
};

// Every member of the archive by name; .npy members parsed (version 1.0 header).
std::map<std::string, NpyArray> readNpz(const std::filesystem::path& file) {
    int code = 0;
    zip_t* archive = zip_open(file.c_str(), ZIP_RDONLY, &code);
    EXPECT_NE(archive, nullptr) << file;
    std::map<std::string, NpyArray> members;
    if (!archive) return members;
    for (zip_int64_t i = 0; i < zip_get_num_entries(archive, 0); ++i) {
        zip_stat_t stat;
        zip_stat_index(archive, i, 0, &stat);
        std::string bytes(stat.size, '\0');
        zip_file_t* f = zip_fopen_index(archive, i, 0);
        EXPECT_EQ(zip_fread(f, bytes.data(), stat.size), static_cast<zip_int64_t>(stat.size));
        zip_fclose(f);
        NpyArray& a = members[stat.name];
        if (!std::string(stat.name).ends_with(".npy")) {
            a.bytes = bytes;
            continue;
        }
        EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
        const size_t length =
            static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
        EXPECT_EQ((10 + length) % 64, 0u);  // the format aligns the data to 64 bytes
        const std::string header = bytes.substr(10, length);
        auto field = [&](const std::string& key, char end) {
            const size_t at = header.find(key) + key.size();
            return header.substr(at, header.find(end, at) - at + (end == ')' ? 1 : 0));
        };
        a.descr = field("'descr': '", '\'');
        a.shape = field("'shape': ", ')');
        EXPECT_NE(header.find("'fortran_order': False"), std::string::npos);
        a.bytes = bytes.substr(10 + length);
    }
    zip_close(archive);
    return members;
}

float floatAt(const NpyArray& a, size_t i) {
    float f;
    std::memcpy(&f, a.bytes.data() + 4 * i, sizeof f);
    return f;
}

TEST(CliNpz, AttentionNpzHoldsTheMatricesTheJsonPrints) {
    QKV_REQUIRE_SHARED(shared);
    const std::string model = (shared / "models" / "gpt_oss-random-tiny").string();
    test::TempDir dir;
    const auto file = dir.path() / "attention.npz";
    const std::vector<std::string> args = {"attention", "--model", model, "--ids",
                                           "1,5,9,700", "--layer", "1",   "--vectors"};
    std::vector<std::string> npzArgs = args, jsonArgs = args;
    npzArgs.insert(npzArgs.end(), {"--npz", file.string()});
    jsonArgs.push_back("--json");
    const test::CliRun written = test::cli(npzArgs);
    ASSERT_EQ(written.exitCode, 0) << written.err;
    EXPECT_NE(written.out.find("25 arrays"), std::string::npos) << written.out;
    const test::CliRun printed = test::cli(jsonArgs);
    ASSERT_EQ(printed.exitCode, 0) << printed.err;
    const nlohmann::json doc = printed.json();

    const auto members = readNpz(file);
    ASSERT_EQ(members.size(), 1u + 4 * 6 + 1);  // ids, 4 heads x 6 arrays, provenance.json
    const NpyArray& ids = members.at("ids.npy");
    EXPECT_EQ(ids.descr, "<i8");
    EXPECT_EQ(ids.shape, "(4,)");
    std::int64_t third;
    std::memcpy(&third, ids.bytes.data() + 16, sizeof third);
    EXPECT_EQ(third, 9);
    const nlohmann::json record = nlohmann::json::parse(members.at("provenance.json").bytes);
    EXPECT_EQ(record["ids"], doc["ids"]);
    EXPECT_EQ(record["config"], "learned");
    EXPECT_EQ(record["arrays"].size(), 25u);

    for (int h = 0; h < 4; ++h) {
        const nlohmann::json& head = doc["layers"][0]["heads"][h];
        const std::string prefix = "layer1_head" + std::to_string(h) + "_";
        for (const char* name : {"attention", "scores", "q", "k", "v", "sink_share"}) {
            const NpyArray& a = members.at(prefix + name + ".npy");
            EXPECT_EQ(a.descr, "<f4");
            const nlohmann::json& expected = head[name];
            const bool vector = std::string(name) == "sink_share";
            const size_t rows = expected.size(), cols = vector ? 1 : expected[0].size();
            EXPECT_EQ(
                a.shape,
                vector ? "(4,)" : "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
            ASSERT_EQ(a.bytes.size(), 4 * rows * cols) << prefix << name;
            for (size_t r = 0; r < rows; ++r)
                for (size_t c = 0; c < cols; ++c) {
                    const double json = vector ? double(expected[r]) : double(expected[r][c]);
                    // The JSON writes 7 significant digits; the archive the float itself.
                    EXPECT_NEAR(floatAt(a, r * cols + c), json, 5e-7 * (std::fabs(json) + 1e-30))
                        << prefix << name << " " << r << "," << c;
                }
        }
    }
}

TEST(CliNpz, AFullDiskIsAnErrorThatLeavesNoFile) {
    test::TempDir dir;
    test::writeTinyGpt2(dir.path() / "model");
    const auto file = dir.path() / "attention.npz";
    // Files of at most 8 blocks of 512 bytes: the archive (8 KB of matrices) cannot be written.
    const test::CliRun r =
        test::cli({"attention", "--model", (dir.path() / "model").string(), "--ids",
                   "1,2,3,4,5,6,7,8,9,10,11,12", "--npz", file.string()},
                  "trap '' XFSZ; ulimit -f 8; ");
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_NE(r.err.find("cannot write the archive"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(file));
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
        EXPECT_EQ(entry.path().filename(), "model");  // nor a temporary beside it
}

}  // namespace
}  // namespace qkv
