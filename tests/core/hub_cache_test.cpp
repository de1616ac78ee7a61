// Models opened by their Hugging Face id from the local cache, in huggingface_hub's layout
// (refs/REVISION -> snapshots/COMMIT/files -> ../../blobs/HASH), with the cache found through
// HF_HUB_CACHE, HF_HOME and XDG_CACHE_HOME as huggingface_hub finds it.
#include "core/io/hub_cache.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>

#include "core/model/model.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/scoped_environment.h"

namespace qkv {
namespace {

using test::TempDir;

using Environment = test::ScopedEnvironment;

constexpr const char* kCommit = "0123456789abcdef0123456789abcdef01234567";

// The tiny GPT-2 fixture cached as `id` at kCommit with refs/main pointing at it; each file a
// link to a blob, as huggingface_hub stores them.
std::filesystem::path cacheTinyModel(const std::filesystem::path& cache, const std::string& id) {
    TempDir source;
    test::writeTinyGpt2(source.path());
    std::string folder = "models--";
    for (char c : id) folder += c == '/' ? std::string("--") : std::string(1, c);
    const auto repo = cache / folder;
    const auto snapshot = repo / "snapshots" / kCommit;
    std::filesystem::create_directories(repo / "blobs");
    std::filesystem::create_directories(repo / "refs");
    std::filesystem::create_directories(snapshot);
    int blob = 0;
    for (const auto& entry : std::filesystem::directory_iterator(source.path())) {
        const std::string hash = "blob" + std::to_string(blob++);
        std::filesystem::copy_file(entry.path(), repo / "blobs" / hash);
        std::filesystem::create_symlink(std::filesystem::path("../../blobs") / hash,
                                        snapshot / entry.path().filename());
    }
    std::ofstream(repo / "refs" / "main") << kCommit;
    return snapshot;
}

TEST(HubCache, ModelIdsHaveTheHubsForm) {
    for (const char* id : {"gpt2", "EleutherAI/pythia-160m", "google/gemma-2-2b", "a.b_c-d/e.f"})
        EXPECT_TRUE(isHubModelId(id)) << id;
    for (const char* id :
         {"", "/gpt2", "gpt2/", "a/b/c", "a--b", "a/../b", ".hidden", "a b", "-x", "models/x y"})
        EXPECT_FALSE(isHubModelId(id)) << id;
}

TEST(HubCache, CacheDirectoryFollowsHuggingFaceHub) {
    Environment env;
    env.set("HF_HUB_CACHE", "/c/hub");
    env.set("HF_HOME", "/h");
    env.set("XDG_CACHE_HOME", "/x");
    env.set("HOME", "/home/u");
    EXPECT_EQ(hubCacheDir(), "/c/hub");
    env.set("HF_HUB_CACHE", std::nullopt);
    EXPECT_EQ(hubCacheDir(), "/h/hub");
    env.set("HF_HOME", std::nullopt);
    EXPECT_EQ(hubCacheDir(), "/x/huggingface/hub");
    env.set("XDG_CACHE_HOME", std::nullopt);
    EXPECT_EQ(hubCacheDir(), "/home/u/.cache/huggingface/hub");
}

TEST(HubCache, AnIdOpensItsCachedSnapshot) {
    TempDir cache;
    Environment env;
    env.set("HF_HUB_CACHE", cache.path().string());
    const auto snapshot = cacheTinyModel(cache.path(), "test-org/tiny-gpt2");
    EXPECT_EQ(findCachedSnapshot("test-org/tiny-gpt2"), snapshot);
    EXPECT_EQ(findCachedSnapshot("test-org/tiny-gpt2", kCommit), snapshot);   // by commit
    EXPECT_EQ(findCachedSnapshot("test-org/tiny-gpt2", "v2"), std::nullopt);  // no such ref
    EXPECT_EQ(findCachedSnapshot("other/model"), std::nullopt);
    EXPECT_EQ(hubIdOfSnapshot(snapshot), "test-org/tiny-gpt2");
    EXPECT_EQ(hubIdOfSnapshot(cache.path()), std::nullopt);

    auto model = Model::open("test-org/tiny-gpt2");
    EXPECT_EQ(model->folder(), snapshot);
    EXPECT_EQ(model->name(), "test-org/tiny-gpt2");
    EXPECT_EQ(model->architecture().family, "gpt2");
    // The folder itself still opens, and is still known by its id.
    EXPECT_EQ(Model::open(snapshot)->name(), "test-org/tiny-gpt2");
}

TEST(HubCache, ListsTheCachedModels) {
    TempDir cache;
    EXPECT_TRUE(listCachedModels(cache.path() / "absent").empty());
    const auto gpt2 = cacheTinyModel(cache.path(), "test-org/tiny-gpt2");
    cacheTinyModel(cache.path(), "another");
    std::filesystem::create_directories(cache.path() / "datasets--x--y" / "snapshots" / kCommit);
    // No branch names this one's snapshot: it is listed at its commit.
    const auto unnamed = cacheTinyModel(cache.path(), "zz/unnamed");
    std::filesystem::remove(unnamed.parent_path().parent_path() / "refs" / "main");
    const auto models = listCachedModels(cache.path());
    ASSERT_EQ(models.size(), 3u);
    EXPECT_EQ(models[2].id, "zz/unnamed");
    EXPECT_EQ(models[2].revision, kCommit);
    EXPECT_EQ(models[2].snapshot, unnamed);
    EXPECT_EQ(models[0].id, "another");
    EXPECT_EQ(models[1].id, "test-org/tiny-gpt2");
    EXPECT_EQ(models[1].revision, "main");
    EXPECT_EQ(models[1].snapshot, gpt2);
    EXPECT_EQ(models[1].modelType, "gpt2");
    std::uintmax_t blobs = 0;
    for (const auto& f :
         std::filesystem::directory_iterator(gpt2.parent_path().parent_path() / "blobs"))
        blobs += f.file_size();
    EXPECT_EQ(models[1].bytes, blobs);
}

TEST(HubCache, AnIdTheCacheLacksIsAClearError) {
    TempDir cache;
    Environment env;
    env.set("HF_HUB_CACHE", cache.path().string());
    try {
        Model::open("EleutherAI/pythia-160m");
        FAIL() << "expected qkv::Error";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("EleutherAI/pythia-160m"), std::string::npos) << message;
        EXPECT_NE(message.find(cache.path().string()), std::string::npos) << message;
    }
    try {
        Model::open("not a model folder");
        FAIL() << "expected qkv::Error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("not a folder"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace qkv
