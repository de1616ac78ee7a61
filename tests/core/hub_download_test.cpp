// Downloads from a Hugging Face Hub into the cache, against a fake Hub on 127.0.0.1 that speaks
// the real endpoints (tests/support/fake_hub_server.h): the cache layout file by file, gated
// repositories, corrupt and broken transfers, resuming, offline mode and cancelling.
#include "core/hub/hub_download.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/hub/hub_settings.h"
#include "core/io/hub_cache.h"
#include "core/model/model.h"
#include "core/util/error.h"
#include "tests/support/fake_hub_server.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/scoped_environment.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

namespace fs = std::filesystem;
using test::FakeHubRepo;
using test::FakeHubServer;
using test::TempDir;

constexpr const char* kCommit = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678";

// Files a repository holds that QKV Lab must never fetch.
const std::vector<std::string> kUnwanted = {"pytorch_model.bin",        "tf_model.h5",
                                            "flax_model.msgpack",       "onnx/model.onnx",
                                            "original/consolidated.pt", "README.md"};

// The tiny GPT-2 fixture (config.json and model.safetensors) with files QKV Lab never fetches.
FakeHubRepo tinyRepo(const std::string& id) {
    TempDir folder;
    test::writeTinyGpt2(folder.path());
    FakeHubRepo repo = test::fakeRepoFromFolder(id, kCommit, folder.path().string());
    for (const std::string& name : kUnwanted) repo.files.push_back({name, "not for us", true});
    return repo;
}

// The tiny repository whose CDN breaks the weights' first transfer off after 1/`part` of them.
FakeHubRepo droppingRepo(const std::string& id, int part) {
    FakeHubRepo repo = tinyRepo(id);
    for (const auto& f : repo.files)
        if (f.name == "model.safetensors") repo.dropAfter = f.content.size() / part;
    repo.dropFile = "model.safetensors";
    repo.drops = 1;
    return repo;
}

HubSettings settingsFor(const FakeHubServer& server, const fs::path& cache) {
    HubSettings s;
    s.endpoint = server.endpoint();
    s.cache = cache;
    return s;
}

const test::FakeHubFile& fileNamed(const FakeHubRepo& repo, const std::string& name) {
    for (const auto& f : repo.files)
        if (f.name == name) return f;
    throw std::runtime_error("no file " + name);
}

std::string contentOf(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

std::string errorOf(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// No blob, partial file or link the failed file could have left.
void expectNothingLeftOf(const fs::path& repoFolder, const std::string& etag) {
    EXPECT_FALSE(fs::exists(repoFolder / "blobs" / etag));
    EXPECT_FALSE(fs::exists(repoFolder / "blobs" / (etag + ".incomplete")));
    EXPECT_FALSE(fs::exists(repoFolder / "refs" / "main"));
}

TEST(HubDownload, WritesHuggingFaceHubsCacheLayout) {
    QKV_REQUIRE_SHARED(shared);
    FakeHubServer server;
    FakeHubRepo repo = test::fakeRepoFromFolder("test-org/gpt2-random-tiny", kCommit,
                                                (shared / "models" / "gpt2-random-tiny").string());
    for (const std::string& name : kUnwanted) repo.files.push_back({name, "not for us", true});
    server.add(repo);
    TempDir cache;

    const DownloadResult result = downloadModel(repo.id, "main", settingsFor(server, cache.path()));
    const fs::path folder = cache.path() / "models--test-org--gpt2-random-tiny";
    EXPECT_EQ(result.commit, kCommit);
    EXPECT_EQ(result.snapshot, folder / "snapshots" / kCommit);
    EXPECT_EQ(contentOf(folder / "refs" / "main"), kCommit);  // the bare hash, as Python writes

    int wanted = 0;
    for (const auto& f : repo.files) {
        const fs::path pointer = result.snapshot / f.name;
        if (!isWantedHubFile(f.name)) {
            EXPECT_FALSE(fs::exists(pointer)) << f.name;
            continue;
        }
        ++wanted;
        const std::string etag =
            f.lfs ? FakeHubServer::sha256(f.content) : FakeHubServer::gitBlobSha1(f.content);
        ASSERT_TRUE(fs::is_symlink(pointer)) << f.name;
        EXPECT_EQ(fs::read_symlink(pointer), fs::path("../../blobs") / etag) << f.name;
        EXPECT_EQ(contentOf(folder / "blobs" / etag), f.content) << f.name;
        EXPECT_TRUE(fs::exists(cache.path() / ".locks" / "models--test-org--gpt2-random-tiny" /
                               (etag + ".lock")));
    }
    EXPECT_EQ(wanted, 4);  // config.json, merges.txt, model.safetensors, vocab.json
    EXPECT_EQ(result.filesFetched, 4);
    for (const auto& entry : fs::directory_iterator(folder / "blobs"))
        EXPECT_NE(entry.path().extension(), ".incomplete");
    for (const auto& request : server.requests())
        for (const std::string& name : kUnwanted)
            EXPECT_FALSE(contains(request.path, name)) << request.path;

    // The model opens by its id from that cache, and offline nothing asks the Hub again.
    test::ScopedEnvironment env;
    env.set("HF_HUB_CACHE", cache.path().string());
    EXPECT_EQ(Model::open(repo.id)->architecture().family, "gpt2");
    HubSettings offline = settingsFor(server, cache.path());
    offline.offline = true;
    const size_t asked = server.requests().size();
    EXPECT_EQ(downloadModel(repo.id, "main", offline).snapshot, result.snapshot);
    EXPECT_EQ(server.requests().size(), asked);

    // Online again, everything is in the cache: the Hub is asked, nothing is fetched.
    const DownloadResult again = downloadModel(repo.id, "main", settingsFor(server, cache.path()));
    EXPECT_EQ(again.filesFetched, 0);
    EXPECT_EQ(again.filesTotal, 4);
}

TEST(HubDownload, ReportsProgressPerFileAndInTotal) {
    FakeHubServer server;
    const FakeHubRepo repo = tinyRepo("tiny");
    server.add(repo);
    TempDir cache;
    std::vector<DownloadProgress> seen;
    downloadModel("tiny", "main", settingsFor(server, cache.path()),
                  [&](const DownloadProgress& p) {
                      seen.push_back(p);
                      return true;
                  });
    ASSERT_FALSE(seen.empty());
    std::uint64_t total = 0;
    for (const auto& f : repo.files)
        if (isWantedHubFile(f.name)) total += f.content.size();
    EXPECT_EQ(seen.back().stage, DownloadProgress::Stage::Done);
    EXPECT_EQ(seen.back().total, total);
    EXPECT_EQ(seen.back().done, total);
    EXPECT_EQ(seen.back().fileIndex, seen.back().fileCount);
    for (size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i].done, seen[i - 1].done);
    bool verified = false;
    for (const auto& p : seen)
        verified |= p.stage == DownloadProgress::Stage::Verifying && p.file == "model.safetensors";
    EXPECT_TRUE(verified);
}

TEST(HubDownload, AGatedModelNeedsAToken) {
    FakeHubServer server;
    FakeHubRepo repo = tinyRepo("org/gated");
    repo.token = "hf_secret";
    server.add(repo);
    TempDir cache;
    HubSettings s = settingsFor(server, cache.path());
    const std::string anonymous = errorOf([&] { downloadModel("org/gated", "main", s); });
    EXPECT_TRUE(contains(anonymous, "org/gated is gated: accept its licence")) << anonymous;
    EXPECT_TRUE(contains(anonymous, "set HF_TOKEN")) << anonymous;
    s.token = "hf_wrong";
    EXPECT_TRUE(contains(errorOf([&] { downloadModel("org/gated", "main", s); }), "is gated"));
    s.token = "hf_secret";
    EXPECT_EQ(downloadModel("org/gated", "main", s).filesFetched, 2);
    EXPECT_EQ(server.requests().back().authorization, "Bearer hf_secret");
}

TEST(HubDownload, AFileThatDoesNotMatchItsEtagIsDiscarded) {
    FakeHubServer server;
    FakeHubRepo repo = tinyRepo("corrupt");
    repo.corruptFile = "model.safetensors";
    server.add(repo);
    TempDir cache;
    const std::string message =
        errorOf([&] { downloadModel("corrupt", "main", settingsFor(server, cache.path())); });
    EXPECT_TRUE(contains(message, "downloading model.safetensors failed")) << message;
    EXPECT_TRUE(contains(message, "SHA-256")) << message;
    const std::string etag = FakeHubServer::sha256(fileNamed(repo, "model.safetensors").content);
    expectNothingLeftOf(cache.path() / "models--corrupt", etag);
    EXPECT_FALSE(
        fs::exists(cache.path() / "models--corrupt" / "snapshots" / kCommit / "model.safetensors"));
}

TEST(HubDownload, ABrokenTransferResumesOnTheNextTry) {
    FakeHubServer server;
    const FakeHubRepo repo = droppingRepo("flaky", 3);
    const std::string& weights = fileNamed(repo, "model.safetensors").content;
    server.add(repo);
    TempDir cache;
    const HubSettings s = settingsFor(server, cache.path());
    const std::string message = errorOf([&] { downloadModel("flaky", "main", s); });
    EXPECT_TRUE(contains(message, "downloading model.safetensors failed")) << message;
    EXPECT_TRUE(contains(message, "run the download again to resume")) << message;
    const fs::path blobs = cache.path() / "models--flaky" / "blobs";
    const std::string etag = FakeHubServer::sha256(weights);
    EXPECT_EQ(fs::file_size(blobs / (etag + ".incomplete")), repo.dropAfter);
    EXPECT_FALSE(fs::exists(blobs / etag));
    EXPECT_FALSE(fs::exists(cache.path() / "models--flaky" / "refs" / "main"));

    DownloadProgress last;
    const DownloadResult result = downloadModel("flaky", "main", s, [&](const auto& p) {
        last = p;
        return true;
    });
    EXPECT_EQ(server.requests().back().range, "bytes=" + std::to_string(repo.dropAfter) + "-");
    EXPECT_EQ(last.done, last.total);  // the resumed part counts towards the whole
    EXPECT_EQ(last.total, weights.size());
    EXPECT_EQ(contentOf(blobs / etag), weights);
    EXPECT_FALSE(fs::exists(blobs / (etag + ".incomplete")));
    EXPECT_EQ(result.filesFetched, 1);  // the small files were kept from the first try
}

TEST(HubDownload, AServerThatIgnoresRangeIsFetchedWhole) {
    FakeHubServer server;
    FakeHubRepo repo = droppingRepo("norange", 2);
    const std::string& weights = fileNamed(repo, "model.safetensors").content;
    repo.ignoreRange = true;
    server.add(repo);
    TempDir cache;
    const HubSettings s = settingsFor(server, cache.path());
    EXPECT_NE(errorOf([&] { downloadModel("norange", "main", s); }), "(no error)");
    downloadModel("norange", "main", s);
    EXPECT_EQ(
        contentOf(cache.path() / "models--norange" / "blobs" / FakeHubServer::sha256(weights)),
        weights);
}

TEST(HubDownload, CancellingStopsBeforeTheRefIsWritten) {
    FakeHubServer server;
    FakeHubRepo repo = tinyRepo("slow");
    server.add(repo);
    TempDir cache;
    EXPECT_THROW(downloadModel("slow", "main", settingsFor(server, cache.path()),
                               [](const DownloadProgress& p) {
                                   return p.stage != DownloadProgress::Stage::Downloading;
                               }),
                 Cancelled);
    EXPECT_FALSE(fs::exists(cache.path() / "models--slow" / "refs" / "main"));
    EXPECT_EQ(downloadModel("slow", "main", settingsFor(server, cache.path())).commit, kCommit);
}

TEST(HubDownload, ARenamedRepositoryIsFollowed) {
    FakeHubServer server;
    FakeHubRepo repo = tinyRepo("new-org/model");
    repo.renamedFrom = "old-org/model";
    server.add(repo);
    TempDir cache;
    const DownloadResult result =
        downloadModel("old-org/model", "main", settingsFor(server, cache.path()));
    EXPECT_EQ(result.filesFetched, 2);
    // Cached under the name the user asked for, as huggingface_hub does.
    EXPECT_TRUE(fs::is_symlink(cache.path() / "models--old-org--model" / "snapshots" / kCommit /
                               "config.json"));
}

TEST(HubDownload, RevisionsByBranchAndByCommit) {
    FakeHubServer server;
    server.add(tinyRepo("tiny"));
    TempDir cache;
    const HubSettings s = settingsFor(server, cache.path());
    const DownloadResult byCommit = downloadModel("tiny", kCommit, s);
    // A commit names itself: no ref is written for it.
    EXPECT_FALSE(fs::exists(cache.path() / "models--tiny" / "refs"));
    EXPECT_EQ(findCachedSnapshot("tiny", kCommit, cache.path()), byCommit.snapshot);
    const std::string message = errorOf([&] { downloadModel("tiny", "v9", s); });
    EXPECT_TRUE(contains(message, "no such revision")) << message;
}

TEST(HubDownload, RefusalsAreClear) {
    FakeHubServer server;
    FakeHubRepo pickles = tinyRepo("pickles");
    std::erase_if(pickles.files, [](const auto& f) { return f.name == "model.safetensors"; });
    server.add(pickles);
    TempDir cache;
    HubSettings s = settingsFor(server, cache.path());
    std::string message = errorOf([&] { downloadModel("no/such-model", "main", s); });
    EXPECT_TRUE(contains(message, "no/such-model: no such model on the Hub")) << message;
    message = errorOf([&] { downloadModel("pickles", "main", s); });
    EXPECT_TRUE(contains(message, "has no safetensors weights")) << message;
    EXPECT_TRUE(contains(message, "PyTorch pickles")) << message;
    message = errorOf([&] { downloadModel("not an id", "main", s); });
    EXPECT_TRUE(contains(message, "not a Hugging Face model id")) << message;

    s.offline = true;
    message = errorOf([&] { downloadModel("pickles", "main", s); });
    EXPECT_TRUE(contains(message, "HF_HUB_OFFLINE")) << message;
    s.offline = false;
    s.endpoint = "http://127.0.0.1:1";  // nothing listens there
    message = errorOf([&] { downloadModel("pickles", "main", s); });
    EXPECT_TRUE(contains(message, "cannot reach the Hugging Face Hub at http://127.0.0.1:1"))
        << message;
    EXPECT_TRUE(contains(message, "HF_HUB_OFFLINE=1")) << message;
}

TEST(HubDownload, OnlyConfigWeightAndTokenizerFilesAreWanted) {
    for (const char* name :
         {"config.json", "model.safetensors", "model-00001-of-00004.safetensors",
          "model.safetensors.index.json", "tokenizer.json", "tokenizer_config.json",
          "tokenizer.model", "source.spm", "vocab.txt", "vocab.json", "merges.txt",
          "special_tokens_map.json", "generation_config.json"})
        EXPECT_TRUE(isWantedHubFile(name)) << name;
    for (const std::string& name : kUnwanted) EXPECT_FALSE(isWantedHubFile(name)) << name;
    EXPECT_FALSE(isWantedHubFile("onnx/model.safetensors"));  // top level only
}

TEST(HubSettings, ReadsHuggingFaceHubsVariables) {
    TempDir home;
    test::ScopedEnvironment env;
    for (const char* name :
         {"HF_ENDPOINT", "HF_TOKEN", "HF_TOKEN_PATH", "HF_HUB_OFFLINE", "HF_HUB_CACHE"})
        env.set(name, std::nullopt);
    env.set("HF_HOME", home.path().string());
    HubSettings s = HubSettings::fromEnvironment();
    EXPECT_EQ(s.endpoint, "https://huggingface.co");
    EXPECT_EQ(s.token, "");
    EXPECT_FALSE(s.offline);
    EXPECT_EQ(s.cache, home.path() / "hub");

    std::ofstream(home.path() / "token") << "hf_from_file\n";
    EXPECT_EQ(HubSettings::fromEnvironment().token, "hf_from_file");
    env.set("HF_TOKEN", "hf_from_env");
    env.set("HF_ENDPOINT", "http://mirror.example/");
    env.set("HF_HUB_OFFLINE", "TRUE");
    s = HubSettings::fromEnvironment();
    EXPECT_EQ(s.token, "hf_from_env");
    EXPECT_EQ(s.endpoint, "http://mirror.example");
    EXPECT_TRUE(s.offline);
    env.set("HF_HUB_OFFLINE", "0");
    EXPECT_FALSE(HubSettings::fromEnvironment().offline);
}

}  // namespace
}  // namespace qkv
