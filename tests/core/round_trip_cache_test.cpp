// W_U W_E kept on disk: the entry holds the computed product bit for bit and is what a second
// call returns; another checkpoint of the same layout has its own entry; a damaged entry is
// recomputed and replaced; a folder that cannot be written costs only the entry; computing it
// reports each block and can be cancelled.
#include "core/analysis/round_trip_cache.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/analysis/ov_circuit.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

std::vector<std::filesystem::path> entries(const std::filesystem::path& folder) {
    std::vector<std::filesystem::path> files;
    if (std::filesystem::exists(folder))
        for (const auto& e : std::filesystem::directory_iterator(folder)) files.push_back(e.path());
    return files;
}

TEST(RoundTripCache, KeepsTheProductPerCheckpointAndReadsItBack) {
    test::TempDir dir, cacheDir;
    test::writeTinyGpt2(dir.path() / "a");
    test::TinyModelSpec other;
    other.seed = 8;  // same layout, other weights
    test::writeTinyGpt2(dir.path() / "b", other);
    const auto a = Model::open(dir.path() / "a");
    const auto b = Model::open(dir.path() / "b");
    ThreadPool pool(2);
    const RoundTripCache cache{cacheDir.path() / "round-trip", 0.0};  // cache even a tiny product

    const Eigen::MatrixXd computed = *vocabularyRoundTrip(*a, pool);
    EXPECT_EQ(*cachedVocabularyRoundTrip(*a, pool, cache), computed);
    ASSERT_EQ(entries(cache.folder).size(), 1u);
    const std::filesystem::path entry = entries(cache.folder).front();
    EXPECT_EQ(std::filesystem::file_size(entry), 12 + sizeof(double) * computed.size());

    // The second call reads the entry: an entry holding other numbers (of the right form) is
    // what it returns.
    Eigen::MatrixXd marked = computed;
    marked(0, 0) = 12345.0;
    {
        std::fstream out(entry, std::ios::in | std::ios::out | std::ios::binary);
        out.seekp(12);
        out.write(reinterpret_cast<const char*>(marked.data()), sizeof(double));
    }
    EXPECT_EQ((*cachedVocabularyRoundTrip(*a, pool, cache))(0, 0), 12345.0);

    // The same layout with other weights: its own entry, its own product.
    EXPECT_EQ(*cachedVocabularyRoundTrip(*b, pool, cache), *vocabularyRoundTrip(*b, pool));
    EXPECT_EQ(entries(cache.folder).size(), 2u);

    // A damaged (truncated) entry is recomputed and replaced.
    std::filesystem::resize_file(entry, 100);
    EXPECT_EQ(*cachedVocabularyRoundTrip(*a, pool, cache), computed);
    EXPECT_EQ(std::filesystem::file_size(entry), 12 + sizeof(double) * computed.size());
}

TEST(RoundTripCache, AnUnwritableFolderCostsOnlyTheEntry) {
    test::TempDir dir;
    test::writeTinyGpt2(dir.path() / "a");
    const auto a = Model::open(dir.path() / "a");
    test::writeText(dir.path() / "file", "not a folder");
    ThreadPool pool(2);
    const RoundTripCache cache{dir.path() / "file" / "round-trip", 0.0};
    EXPECT_EQ(*cachedVocabularyRoundTrip(*a, pool, cache), *vocabularyRoundTrip(*a, pool));
}

TEST(RoundTripCache, SmallProductsAreNotWritten) {
    test::TempDir dir, cacheDir;
    test::writeTinyGpt2(dir.path() / "a");
    const auto a = Model::open(dir.path() / "a");
    ThreadPool pool(2);
    const RoundTripCache cache{cacheDir.path() / "round-trip"};  // the default threshold
    EXPECT_EQ(*cachedVocabularyRoundTrip(*a, pool, cache), *vocabularyRoundTrip(*a, pool));
    EXPECT_TRUE(entries(cache.folder).empty());
}

// The product's blocks of 2,048 vocabulary rows are reported one at a time, each once, the
// last as (blocks, blocks); a cancel between blocks stops it with Cancelled. A read from the
// cache reports nothing (nothing is computed).
TEST(RoundTripCache, ReportsEachBlockAndCanBeCancelled) {
    test::TempDir dir, cacheDir;
    test::TinyModelSpec spec;
    spec.vocab = 5000;  // three blocks
    test::writeTinyGpt2(dir.path(), spec);
    const auto model = Model::open(dir.path());
    ThreadPool pool(2);
    const RoundTripCache cache{cacheDir.path() / "round-trip", 0.0};
    std::vector<std::pair<int, int>> reports;
    const Progress record = [&](int done, int total) { reports.emplace_back(done, total); };
    ASSERT_TRUE(cachedVocabularyRoundTrip(*model, pool, cache, record).has_value());
    EXPECT_EQ(reports, (std::vector<std::pair<int, int>>{{1, 3}, {2, 3}, {3, 3}}));
    reports.clear();
    cachedVocabularyRoundTrip(*model, pool, cache, record);
    EXPECT_TRUE(reports.empty());

    const std::atomic<bool> cancel{true};
    EXPECT_THROW(vocabularyRoundTrip(*model, pool, record, &cancel), Cancelled);
    EXPECT_TRUE(reports.empty());
}

// A GGUF file's quantised embedding and untied output head are keyed by their blocks as stored:
// the entry reads back as computed, and two quantisations of one model keep two entries.
TEST(RoundTripCache, GgufBlocksKeyTheirOwnEntries) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    const auto folder = shared / "gguf" / "llama-gguf-tiny";
    const test::TempDir cacheDir;
    const RoundTripCache cache{cacheDir.path() / "round-trip", 0.0};
    ThreadPool pool(1);
    const auto q4 = Model::open(folder / "llama-gguf-tiny-Q4_K_M.gguf");
    const auto computed = cachedVocabularyRoundTrip(*q4, pool, cache);
    ASSERT_TRUE(computed.has_value());
    EXPECT_EQ(*cachedVocabularyRoundTrip(*q4, pool, cache), *computed);
    cachedVocabularyRoundTrip(*Model::open(folder / "llama-gguf-tiny-Q6_K.gguf"), pool, cache);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(cache.folder),
                            std::filesystem::directory_iterator()),
              2);
}

}  // namespace
}  // namespace qkv
