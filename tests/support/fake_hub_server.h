#pragma once
// A Hugging Face Hub on 127.0.0.1 for tests (no test reaches the internet). It speaks the
// endpoints QKV Lab's Hub client uses, as huggingface.co answers them:
//   GET       /api/models/ID/revision/REV   {"sha", "siblings": [{"rfilename"}]}
//   HEAD/GET  /ID/resolve/REV/FILE          a small file: 200 with ETag (git blob SHA-1);
//                                           an LFS file: 302 to /cdn/SHA256 with X-Linked-Etag
//                                           and X-Linked-Size; both with X-Repo-Commit
//   GET       /cdn/SHA256                   the LFS content, honouring Range (206)
//   POST      /api/models/ID/paths-info/REV  the files' oid, size and lfs (huggingface.js uses it)
// and misbehaves on request: a gated repository, a file whose content does not match its ETag,
// a connection dropped halfway, a CDN that ignores Range, a renamed repository (relative 307).
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace qkv::test {

struct FakeHubFile {
    std::string name;
    std::string content;
    bool lfs = false;  // served through the CDN redirect, ETag = SHA-256
};

struct FakeHubRepo {
    std::string id;
    std::string commit;  // 40 hex digits; "main" names it
    std::vector<FakeHubFile> files;
    std::string token;          // non-empty: gated, resolve needs "Bearer TOKEN"
    std::string corruptFile;    // served with one byte changed
    std::string dropFile;       // the CDN closes the connection after dropAfter bytes,
    std::size_t dropAfter = 0;  //   `drops` times
    int drops = 0;
    bool ignoreRange = false;        // the CDN answers a Range request with the whole file
    std::string renamedFrom;         // the old id, answered with a relative redirect
    std::size_t bytesPerSecond = 0;  // non-zero: the CDN sends this slowly (progress demos)
};

struct FakeHubRequest {
    std::string method, path, range, authorization;
};

class FakeHubServer {
  public:
    FakeHubServer();  // listens on an ephemeral port of 127.0.0.1
    ~FakeHubServer();
    FakeHubServer(const FakeHubServer&) = delete;
    FakeHubServer& operator=(const FakeHubServer&) = delete;

    void add(FakeHubRepo repo);
    std::string endpoint() const;  // "http://127.0.0.1:PORT"
    std::vector<FakeHubRequest> requests() const;

    static std::string sha256(const std::string& content);
    static std::string gitBlobSha1(const std::string& content);

  private:
    void serve();
    void answer(int socket);

    int m_listen = -1;
    int m_port = 0;
    std::atomic<bool> m_stop{false};
    mutable std::mutex m_mutex;
    std::map<std::string, FakeHubRepo> m_repos;
    std::vector<FakeHubRequest> m_requests;
    std::thread m_thread;
};

// The files of a model folder as a repository at `commit`: *.safetensors through LFS, the rest
// as small files.
FakeHubRepo fakeRepoFromFolder(const std::string& id, const std::string& commit,
                               const std::string& folder);

}  // namespace qkv::test
