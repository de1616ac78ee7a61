// Replays every committed input of each fuzz target (its seed corpus and the inputs of crashes
// found and fixed) through the same target function, in the ordinary test build.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_target.h"

namespace qkv::fuzz {
namespace {

std::vector<std::filesystem::path> inputsOf(const std::string& target) {
    std::vector<std::filesystem::path> files;
    for (const char* kind : {"corpus", "regressions"}) {
        const std::filesystem::path dir = std::filesystem::path(QKV_FUZZ_DIR) / kind / target;
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec)) continue;
        for (const auto& entry : std::filesystem::directory_iterator(dir))
            if (entry.is_regular_file()) files.push_back(entry.path());
    }
    return files;
}

std::string contentOf(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class FuzzRegression : public testing::TestWithParam<std::string> {};

TEST_P(FuzzRegression, CommittedInputsGiveResultsOrClearErrors) {
    const auto files = inputsOf(GetParam());
    ASSERT_FALSE(files.empty()) << "no seed corpus for " << GetParam();
    for (const auto& file : files) {
        SCOPED_TRACE(file.string());
        const std::string bytes = contentOf(file);
        EXPECT_NO_THROW(runTarget(registry().at(GetParam()),
                                  reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                  bytes.size()));
    }
}

std::vector<std::string> targetNames() {
    std::vector<std::string> names;
    for (const auto& [name, function] : registry()) names.push_back(name);
    return names;
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzRegression, testing::ValuesIn(targetNames()),
                         [](const testing::TestParamInfo<std::string>& info) {
                             return info.param;
                         });

// Every target directory in the repository has a registered target (a renamed target must not
// leave its regression inputs silently unreplayed).
TEST(FuzzRegression, EveryInputFolderHasATarget) {
    for (const char* kind : {"corpus", "regressions"}) {
        const std::filesystem::path dir = std::filesystem::path(QKV_FUZZ_DIR) / kind;
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec)) continue;
        for (const auto& entry : std::filesystem::directory_iterator(dir))
            EXPECT_TRUE(registry().contains(entry.path().filename().string()))
                << entry.path() << " has no fuzz target";
    }
}

}  // namespace
}  // namespace qkv::fuzz
