#pragma once
// Downloads what QKV Lab reads of a Hub model into the Hugging Face cache, in the layout
// huggingface_hub writes, so Python and QKV Lab share one cache:
//   blobs/ETAG                  each file's content, named by its ETag
//   blobs/ETAG.incomplete       a transfer in progress; the next try resumes it (Range)
//   snapshots/COMMIT/FILE       a relative link to ../../blobs/ETAG
//   refs/REVISION               the commit a branch or tag named, written last
//   ../.locks/models--…/ETAG.lock   the lock huggingface_hub takes while writing a blob
// Only config.json, the safetensors weights (and their index) and tokenizer files are fetched.
// An LFS file's SHA-256 must equal its ETag before it becomes a blob.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/hub/hub_settings.h"

namespace qkv {

// Whether QKV Lab reads a repository file (a top-level config, weight or tokenizer file).
bool isWantedHubFile(const std::string& name);

struct DownloadProgress {
    enum class Stage { Listing, Downloading, Verifying, Done };
    Stage stage = Stage::Listing;
    std::string file;   // the file being fetched or checked
    int fileIndex = 0;  // 1-based, of fileCount
    int fileCount = 0;
    std::uint64_t fileDone = 0, fileBytes = 0;  // of this file
    std::uint64_t done = 0, total = 0;          // of all files still to fetch
};
// Called on the downloading thread; returns false to cancel (qkv::Cancelled is thrown, and a
// partial file stays for the next try to resume).
using DownloadListener = std::function<bool(const DownloadProgress&)>;

struct DownloadResult {
    std::filesystem::path snapshot;
    std::string commit;
    int filesFetched = 0;  // the others were in the cache already
    int filesTotal = 0;
    std::uint64_t bytesFetched = 0;
};

// With HF_HUB_OFFLINE set this only finds the cached snapshot, or says it is not there.
DownloadResult downloadModel(const std::string& id, const std::string& revision,
                             const HubSettings& settings, const DownloadListener& listener = {});

}  // namespace qkv
