#pragma once
// The Hugging Face cache that huggingface_hub (and so transformers' from_pretrained) fills, read
// in its documented layout, so a model's Hub id opens from it like a folder:
//   <cache>/models--ORG--NAME/refs/REVISION        the commit a branch or tag points at
//   <cache>/models--ORG--NAME/snapshots/COMMIT/... the repository's files (links to blobs/)
// The cache is $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qkv {

std::filesystem::path hubCacheDir();
// $HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface (where the token file is).
std::filesystem::path hubHomeDir();
// "models--ORG--NAME": the folder of repository `id` inside the cache.
std::string hubRepositoryFolder(const std::string& id);
// Whether `revision` is a full commit hash (40 hex digits) rather than a branch or tag.
bool isCommitHash(const std::string& revision);

// Whether `text` has the form of a Hub model id: NAME or ORG/NAME, of letters, digits, '-', '_'
// and '.', with no "--" or ".." and at most 96 characters.
bool isHubModelId(std::string_view text);

// The snapshot folder of model `id` at `revision` (a branch, tag or 40-digit commit), when the
// cache holds it; nullopt otherwise.
std::optional<std::filesystem::path> findCachedSnapshot(
    const std::string& id, const std::string& revision = "main",
    const std::filesystem::path& cache = hubCacheDir());

// The Hub id of a snapshot folder inside a cache ("EleutherAI/pythia-160m"), or nullopt for
// any other folder.
std::optional<std::string> hubIdOfSnapshot(const std::filesystem::path& folder);

// One model repository in the cache, at the revision its refs/main names (else its newest
// snapshot).
struct CachedModel {
    std::string id;                  // "EleutherAI/pythia-160m"
    std::string revision;            // "main", or the commit when no ref names a snapshot
    std::filesystem::path snapshot;  // the folder to open
    std::uint64_t bytes = 0;         // the repository's blobs on disk
    std::string modelType;           // config.json "model_type"; empty when unreadable
};

// Every model repository of the cache, sorted by id; an absent cache is an empty list.
std::vector<CachedModel> listCachedModels(const std::filesystem::path& cache = hubCacheDir());

// What a user typed where a model is expected: an existing folder is itself; a Hub id is its
// cached snapshot at `revision`. Throws qkv::Error saying what was looked for, and where,
// otherwise.
std::filesystem::path resolveModelLocation(const std::string& location,
                                           const std::string& revision = "main");

}  // namespace qkv
