#include "core/hub/hub_download.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>

#include "core/hub/hub_repository.h"
#include "core/io/hub_cache.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/sha256.h"

namespace qkv {
namespace fs = std::filesystem;

namespace {

bool isWeightFile(const std::string& name) { return name.ends_with(".safetensors"); }

std::string quantity(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
    return text;
}

// The lock huggingface_hub (py-filelock, flock) takes on a blob while it writes it; taking the
// same one keeps QKV Lab and Python from writing one blob at once. Waits while cancellable.
class BlobLock {
  public:
    BlobLock(const fs::path& path, const std::function<bool()>& keepWaiting) {
        fs::create_directories(path.parent_path());
        m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (m_fd < 0)
            throw Error(path.string() +
                        ": cannot create the download lock: " + std::strerror(errno));
        while (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
            if (!keepWaiting()) {
                ::close(m_fd);
                throw Cancelled();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    }
    ~BlobLock() {
        ::flock(m_fd, LOCK_UN);
        ::close(m_fd);
    }
    BlobLock(const BlobLock&) = delete;
    BlobLock& operator=(const BlobLock&) = delete;

  private:
    int m_fd = -1;
};

class Downloader {
  public:
    Downloader(const HubRepository& repo, const HubSettings& settings,
               const DownloadListener& listener)
        : m_repo(repo),
          m_folder(settings.cache / hubRepositoryFolder(repo.id())),
          m_locks(settings.cache / ".locks" / hubRepositoryFolder(repo.id())),
          m_listener(listener) {}

    DownloadResult run(const std::string& revision) {
        report(DownloadProgress::Stage::Listing, true);
        const RepositoryListing listing = m_repo.listing(revision);
        std::vector<std::string> names = wantedFiles(listing, revision);
        m_progress.fileCount = static_cast<int>(names.size());

        std::vector<RemoteFile> files;
        for (const std::string& name : names) {
            files.push_back(m_repo.file(listing.commit, name));
            if (!fs::exists(blobPath(files.back()))) m_progress.total += files.back().size;
        }
        requireSpace();

        DownloadResult result;
        result.commit = listing.commit;
        result.snapshot = m_folder / "snapshots" / listing.commit;
        result.filesTotal = static_cast<int>(files.size());
        for (const RemoteFile& file : files) {
            ++m_progress.fileIndex;
            m_progress.file = file.name;
            if (fetchBlob(file)) {
                ++result.filesFetched;
                result.bytesFetched += file.size;
            }
            linkIntoSnapshot(file, result.snapshot);
        }
        if (revision != listing.commit) writeRef(revision, listing.commit);
        report(DownloadProgress::Stage::Done, true);
        return result;
    }

  private:
    std::vector<std::string> wantedFiles(const RepositoryListing& listing,
                                         const std::string& revision) const {
        std::vector<std::string> names;
        for (const std::string& name : listing.files)
            if (isWantedHubFile(name)) names.push_back(name);
        const bool hasConfig = std::count(names.begin(), names.end(), "config.json") > 0;
        if (!hasConfig)
            throw Error(m_repo.id() + " has no config.json at revision " + revision +
                        ": it is not a transformers model QKV Lab can read");
        if (std::none_of(names.begin(), names.end(), isWeightFile)) {
            const bool pickle = std::any_of(
                listing.files.begin(), listing.files.end(),
                [](const std::string& n) { return n.ends_with(".bin") || n.ends_with(".pt"); });
            throw Error(m_repo.id() + " has no safetensors weights at revision " + revision +
                        (pickle ? " (only PyTorch pickles, which QKV Lab never runs: look for "
                                  "a revision or copy of the model with model.safetensors)"
                                : ""));
        }
        // Small files first, so the configuration and tokenizer are there early.
        std::stable_sort(names.begin(), names.end(), [](const auto& a, const auto& b) {
            return !isWeightFile(a) && isWeightFile(b);
        });
        return names;
    }

    fs::path blobPath(const RemoteFile& file) const { return m_folder / "blobs" / file.etag; }

    void requireSpace() const {
        fs::path existing = m_folder;
        std::error_code ec;
        while (!fs::exists(existing, ec) && existing.has_parent_path() &&
               existing != existing.parent_path())
            existing = existing.parent_path();
        const fs::space_info space = fs::space(existing, ec);
        if (!ec && space.available < m_progress.total)
            throw Error(m_repo.id() + " needs " + quantity(m_progress.total) + " but " +
                        existing.string() + " has " + quantity(space.available) + " free");
    }

    // Fetches a file into blobs/ unless it is there; returns whether it was fetched.
    bool fetchBlob(const RemoteFile& file) {
        const fs::path blob = blobPath(file);
        m_progress.fileBytes = file.size;
        m_progress.fileDone = 0;
        if (fs::exists(blob)) return false;
        const BlobLock lock(m_locks / (file.etag + ".lock"),
                            [this] { return report(DownloadProgress::Stage::Downloading, true); });
        if (fs::exists(blob)) return false;  // another process wrote it while we waited
        fs::create_directories(blob.parent_path());
        const fs::path partial = fs::path(blob.string() + ".incomplete");
        transfer(file, partial);
        verify(file, partial);
        fs::rename(partial, blob);
        return true;
    }

    void transfer(const RemoteFile& file, const fs::path& partial) {
        std::error_code ec;
        std::uint64_t offset = fs::exists(partial, ec) ? fs::file_size(partial, ec) : 0;
        if (ec || offset >= file.size) offset = 0;         // unusable leftovers are fetched anew
        const std::uint64_t doneBefore = m_progress.done;  // of the files before this one
        std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(
            std::fopen(partial.c_str(), offset > 0 ? "r+b" : "wb"), &std::fclose);
        if (!out) throw Error(failure(file, "cannot write " + partial.string(), errno));
        int writeErrno = 0;
        std::uint64_t written = offset;  // where the file ends
        const HttpClient::Sink sink = [&](const char* data, size_t size, std::uint64_t at) {
            // A server that ignores the Range sends the file from its start: write over it.
            if (at != written && (std::fseek(out.get(), static_cast<long>(at), SEEK_SET) != 0 ||
                                  ::ftruncate(::fileno(out.get()), static_cast<off_t>(at)) != 0)) {
                writeErrno = errno;
                return false;
            }
            if (std::fwrite(data, 1, size, out.get()) != size) {
                writeErrno = errno;
                return false;
            }
            written = at + size;
            m_progress.fileDone = std::min(file.size, written);
            m_progress.done = doneBefore + m_progress.fileDone;  // a resumed part counts
            return true;
        };
        const HttpClient::Listener listener = [this] {
            return report(DownloadProgress::Stage::Downloading, false);
        };
        if (offset > 0) std::fseek(out.get(), static_cast<long>(offset), SEEK_SET);
        m_progress.fileDone = offset;
        m_progress.done = doneBefore + offset;
        if (!report(DownloadProgress::Stage::Downloading, true)) throw Cancelled();
        HttpResponse r;
        try {
            r = m_repo.client().download(file.downloadUrl, offset, sink, listener);
        } catch (const HttpError& e) {
            out.reset();
            switch (e.kind()) {
                case HttpError::Kind::Cancelled:
                    throw Cancelled();
                case HttpError::Kind::SinkFailed:
                    discard(partial, failure(file, "cannot write " + partial.string(), writeErrno));
                case HttpError::Kind::Dropped:
                    throw Error(failure(file,
                                        "the transfer broke off after " +
                                            quantity(m_progress.fileDone) + " of " +
                                            quantity(file.size) + " (" + e.what() +
                                            "); run the download again to resume it",
                                        0));
                case HttpError::Kind::Unreachable:
                    m_repo.unreachable(e);
            }
        }
        const bool flushed = std::fflush(out.get()) == 0;
        const int flushErrno = errno;
        out.reset();
        if (!flushed)
            discard(partial, failure(file, "cannot write " + partial.string(), flushErrno));
        m_repo.requireSuccess(r, file.name);
    }

    void verify(const RemoteFile& file, const fs::path& partial) {
        std::error_code ec;
        const std::uint64_t size = fs::file_size(partial, ec);
        if (size != file.size)
            discard(partial, failure(file,
                                     "received " + std::to_string(size) + " bytes, the Hub said " +
                                         std::to_string(file.size) + "; the file was discarded",
                                     0));
        if (!file.isLfs()) return;  // a git blob's SHA-1 covers a header: its size is the check
        report(DownloadProgress::Stage::Verifying, true);
        const std::string sha = fileSha256(partial);
        if (sha != file.etag)
            discard(partial, failure(file,
                                     "its SHA-256 is " + sha + " but the Hub's ETag says " +
                                         file.etag + "; the corrupt download was discarded",
                                     0));
    }

    // snapshots/COMMIT/NAME -> ../../blobs/ETAG (one more ../ per folder in NAME).
    void linkIntoSnapshot(const RemoteFile& file, const fs::path& snapshot) const {
        const fs::path pointer = snapshot / file.name;
        fs::create_directories(pointer.parent_path());
        const fs::path target = blobPath(file).lexically_relative(pointer.parent_path());
        std::error_code ec;
        if (fs::is_symlink(pointer, ec) && fs::read_symlink(pointer, ec) == target) return;
        fs::remove(pointer, ec);
        fs::create_symlink(target, pointer, ec);
        if (ec) throw Error(pointer.string() + ": cannot link it to its blob: " + ec.message());
    }

    void writeRef(const std::string& revision, const std::string& commit) const {
        const fs::path ref = m_folder / "refs" / revision;
        fs::create_directories(ref.parent_path());
        writeFileAtomically(ref, commit);  // huggingface_hub writes the bare hash, no newline
    }

    // A partial file that cannot be resumed (corrupt, short, or half written) goes, and the
    // download fails with `message`.
    [[noreturn]] static void discard(const fs::path& partial, const std::string& message) {
        std::error_code ec;
        fs::remove(partial, ec);
        throw Error(message);
    }

    std::string failure(const RemoteFile& file, const std::string& what, int error) const {
        return m_repo.id() + ": downloading " + file.name + " failed: " + what +
               (error != 0 ? std::string(": ") + std::strerror(error) : std::string());
    }

    // Tells the listener at most ten times a second (always when `now`); false: cancel.
    bool report(DownloadProgress::Stage stage, bool now) {
        if (!m_listener) return true;
        const auto time = std::chrono::steady_clock::now();
        if (!now && time - m_lastReport < std::chrono::milliseconds(100)) return true;
        m_lastReport = time;
        m_progress.stage = stage;
        return m_listener(m_progress);
    }

    const HubRepository& m_repo;
    fs::path m_folder;
    fs::path m_locks;
    const DownloadListener& m_listener;
    DownloadProgress m_progress;
    std::chrono::steady_clock::time_point m_lastReport{};
};

}  // namespace

bool isWantedHubFile(const std::string& name) {
    if (name.find('/') != std::string::npos) return false;  // e.g. original/, onnx/
    static const char* exact[] = {"config.json",
                                  "generation_config.json",
                                  "tokenizer.json",
                                  "tokenizer_config.json",
                                  "special_tokens_map.json",
                                  "added_tokens.json",
                                  "vocab.json",
                                  "vocab.txt",
                                  "merges.txt"};
    for (const char* e : exact)
        if (name == e) return true;
    return name.ends_with(".safetensors") || name.ends_with(".safetensors.index.json") ||
           name.ends_with(".model") || name.ends_with(".spm");  // SentencePiece models
}

DownloadResult downloadModel(const std::string& id, const std::string& revision,
                             const HubSettings& settings, const DownloadListener& listener) {
    if (settings.offline) {
        const auto snapshot = findCachedSnapshot(id, revision, settings.cache);
        if (!snapshot)
            throw Error(id + " (revision " + revision + ") is not in the Hugging Face cache (" +
                        settings.cache.string() +
                        ") and HF_HUB_OFFLINE is set: unset it to download the model");
        DownloadResult result;
        result.snapshot = *snapshot;
        result.commit = snapshot->filename().string();
        return result;
    }
    const HubRepository repo(settings, id);
    Downloader downloader(repo, settings, listener);
    try {
        return downloader.run(revision);
    } catch (const fs::filesystem_error& e) {
        throw Error(id + ": writing the Hugging Face cache failed: " + e.what());
    }
}

}  // namespace qkv
