#pragma once
// One model repository on the Hub, read through its HTTP endpoints as huggingface_hub reads them:
//   GET  {endpoint}/api/models/{id}/revision/{revision}   the commit and its file list
//   HEAD {endpoint}/{id}/resolve/{commit}/{file}          a file's ETag, size and download URL
// A refused request becomes a qkv::Error a user can act on (gated, private, missing, offline).
#include <cstdint>
#include <string>
#include <vector>

#include "core/hub/http_client.h"
#include "core/hub/hub_settings.h"

namespace qkv {

struct RepositoryListing {
    std::string commit;              // the 40-digit commit the revision names
    std::vector<std::string> files;  // every file of that commit, as paths in the repository
};

struct RemoteFile {
    std::string name;         // path in the repository ("model.safetensors")
    std::string etag;         // git blob SHA-1, or an LFS file's SHA-256 (64 hex digits)
    std::uint64_t size = 0;   // of the file itself (an LFS file's, not its pointer's)
    std::string downloadUrl;  // the resolve URL, or where it redirects (a CDN)

    bool isLfs() const { return etag.size() == 64; }
};

class HubRepository {
  public:
    HubRepository(const HubSettings& settings, std::string id);

    const std::string& id() const { return m_id; }
    const HttpClient& client() const { return m_client; }

    RepositoryListing listing(const std::string& revision) const;
    RemoteFile file(const std::string& commit, const std::string& name) const;

    // Throws the message for a refused request (any status outside 2xx); `what` names the
    // request ("the file list", "model.safetensors").
    void requireSuccess(const HttpResponse& response, const std::string& what) const;
    // The message for a transfer that never got an answer.
    [[noreturn]] void unreachable(const HttpError& error) const;

  private:
    HubSettings m_settings;
    std::string m_id;
    HttpClient m_client;
};

}  // namespace qkv
