#include "core/hub/hub_repository.h"

#include <nlohmann/json.hpp>

#include "core/io/hub_cache.h"

namespace qkv {
namespace {

std::vector<std::string> authorization(const HubSettings& settings) {
    if (settings.token.empty()) return {};
    return {"Authorization: Bearer " + settings.token};
}

// An ETag as the cache names blobs by it: without a weak-validator prefix or quotes.
std::string normalisedEtag(std::string etag) {
    if (etag.rfind("W/", 0) == 0) etag.erase(0, 2);
    if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"')
        etag = etag.substr(1, etag.size() - 2);
    return etag;
}

bool isRelative(const std::string& location) { return location.find("://") == std::string::npos; }

std::string origin(const std::string& url) {
    const size_t scheme = url.find("://");
    const size_t path = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
    return path == std::string::npos ? url : url.substr(0, path);
}

}  // namespace

HubRepository::HubRepository(const HubSettings& settings, std::string id)
    : m_settings(settings), m_id(std::move(id)), m_client(authorization(settings)) {
    if (!isHubModelId(m_id))
        throw Error("'" + m_id + "' is not a Hugging Face model id (NAME or ORG/NAME)");
}

void HubRepository::unreachable(const HttpError& error) const {
    if (error.kind() == HttpError::Kind::Cancelled) throw Cancelled();
    throw Error("cannot reach the Hugging Face Hub at " + m_settings.endpoint + " (" +
                error.what() + "); set HF_HUB_OFFLINE=1 to work from the cache only");
}

void HubRepository::requireSuccess(const HttpResponse& r, const std::string& what) const {
    if (r.status >= 200 && r.status <= 299) return;
    const std::string code = r.header("x-error-code");
    const std::string page = m_settings.endpoint + "/" + m_id;
    const std::string status = " (HTTP " + std::to_string(r.status) + ")";
    if (code == "GatedRepo")
        throw Error(m_id + " is gated: accept its licence on the Hub (" + page + ") and set " +
                    (m_settings.token.empty()
                         ? std::string("HF_TOKEN")
                         : std::string("HF_TOKEN to a token of the account that accepted it")) +
                    status);
    if (code == "RevisionNotFound")
        throw Error(m_id + " has no such revision on the Hub: " + what + status);
    if (code == "EntryNotFound") throw Error(m_id + ": " + what + " is not on the Hub" + status);
    if (r.status == 401 || r.status == 404)
        throw Error(m_id + ": no such model on the Hub (" + m_settings.endpoint +
                    "), or it is private" +
                    (m_settings.token.empty() ? ": set HF_TOKEN to a token that can read it"
                                              : " and HF_TOKEN cannot read it") +
                    status);
    if (r.status == 403)
        throw Error(m_id + ": the Hub refused " + what + status + "; check HF_TOKEN's access");
    if (r.status == 429)
        throw Error("the Hub is limiting requests (HTTP 429) while fetching " + what + " of " +
                    m_id + "; try again in a few minutes");
    std::string message = r.header("x-error-message");
    throw Error("the Hub answered HTTP " + std::to_string(r.status) + " for " + what + " of " +
                m_id + (message.empty() ? "" : ": " + message));
}

RepositoryListing HubRepository::listing(const std::string& revision) const {
    const std::string url = m_settings.endpoint + "/api/models/" + m_id + "/revision/" +
                            HttpClient::escape(revision, false);
    HttpResponse r;
    try {
        r = m_client.get(url);
    } catch (const HttpError& e) {
        unreachable(e);
    }
    requireSuccess(r, "revision '" + revision + "'");
    const nlohmann::json doc = nlohmann::json::parse(r.body, nullptr, false);
    if (!doc.is_object() || !doc.contains("sha") || !doc["sha"].is_string() ||
        !doc.contains("siblings") || !doc["siblings"].is_array())
        throw Error("the Hub's answer for " + m_id + " is not a model description (" + url + ")");
    RepositoryListing listing;
    listing.commit = doc["sha"].get<std::string>();
    if (!isCommitHash(listing.commit))
        throw Error("the Hub named no commit for " + m_id + " at revision " + revision);
    for (const auto& sibling : doc["siblings"])
        if (sibling.is_object() && sibling.contains("rfilename") &&
            sibling["rfilename"].is_string())
            listing.files.push_back(sibling["rfilename"].get<std::string>());
    return listing;
}

// Relative redirects (a renamed repository) are followed; an absolute one (an LFS file on a
// CDN) is where the file will be fetched from, its headers describe the file.
RemoteFile HubRepository::file(const std::string& commit, const std::string& name) const {
    std::string url = m_settings.endpoint + "/" + m_id + "/resolve/" + commit + "/" +
                      HttpClient::escape(name, true);
    HttpResponse r;
    for (int hop = 0;; ++hop) {
        try {
            r = m_client.head(url);
        } catch (const HttpError& e) {
            unreachable(e);
        }
        const std::string location = r.header("location");
        if (r.status < 300 || r.status > 399 || !isRelative(location) || hop == 5) break;
        url = origin(url) + location;
    }
    if (r.status < 300 || r.status > 399) requireSuccess(r, name);
    RemoteFile f;
    f.name = name;
    f.etag = normalisedEtag(r.header("x-linked-etag"));
    if (f.etag.empty()) f.etag = normalisedEtag(r.header("etag"));
    std::string size = r.header("x-linked-size");
    if (size.empty()) size = r.header("content-length");
    f.downloadUrl = r.status >= 300 ? r.header("location") : url;
    if (f.etag.empty() || size.empty() || f.downloadUrl.empty() ||
        size.find_first_not_of("0123456789") != std::string::npos)
        throw Error("the Hub sent no ETag or size for " + name + " of " + m_id +
                    " (is HF_ENDPOINT a Hugging Face Hub?)");
    f.size = std::stoull(size);
    if (f.etag.find('/') != std::string::npos || f.etag.find("..") != std::string::npos)
        throw Error("the Hub sent an unusable ETag for " + name + " of " + m_id);
    return f;
}

}  // namespace qkv
