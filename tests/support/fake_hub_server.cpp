#include "tests/support/fake_hub_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace qkv::test {
namespace {

std::string digest(const EVP_MD* md, const std::string& data) {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_Digest(data.data(), data.size(), out, &length, md, nullptr);
    static const char* hex = "0123456789abcdef";
    std::string text;
    for (unsigned int i = 0; i < length; ++i) {
        text += hex[out[i] >> 4];
        text += hex[out[i] & 15];
    }
    return text;
}

// Whether all of `data` went out (false once the client has gone).
bool sendAll(int socket, const std::string& data) {
    size_t sent = 0;
    while (sent < data.size()) {
        const ssize_t n = ::send(socket, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) return false;
        sent += static_cast<size_t>(n);
    }
    return true;
}

struct Reply {
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::size_t contentLength = std::string::npos;  // npos: body.size()
    std::size_t cutAfter = std::string::npos;       // close after this many body bytes
    std::size_t bytesPerSecond = 0;                 // 0: as fast as the socket takes it
};

std::string reason(int status) {
    switch (status) {
        case 200:
            return "OK";
        case 206:
            return "Partial Content";
        case 302:
            return "Found";
        case 307:
            return "Temporary Redirect";
        case 401:
            return "Unauthorized";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        default:
            return "Status";
    }
}

void send(int socket, const Reply& reply, bool head) {
    std::ostringstream out;
    out << "HTTP/1.1 " << reply.status << " " << reason(reply.status) << "\r\n";
    for (const auto& [name, value] : reply.headers) out << name << ": " << value << "\r\n";
    const std::size_t length =
        reply.contentLength == std::string::npos ? reply.body.size() : reply.contentLength;
    out << "Content-Length: " << length << "\r\nConnection: close\r\n\r\n";
    sendAll(socket, out.str());
    if (head) return;
    const std::string body = reply.body.substr(0, reply.cutAfter);
    if (reply.bytesPerSecond == 0) {
        sendAll(socket, body);
        return;
    }
    const std::size_t step = std::max<std::size_t>(1, reply.bytesPerSecond / 20);
    for (std::size_t at = 0; at < body.size() && sendAll(socket, body.substr(at, step)); at += step)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

// Answers "Range: bytes=FROM-" or "bytes=FROM-TO" with 206 and the part.
void applyRange(Reply& r, const std::string& range) {
    std::size_t from = 0, to = 0;
    const int fields = std::sscanf(range.c_str(), "bytes=%zu-%zu", &from, &to);
    if (fields < 1 || from >= r.body.size()) return;
    if (fields < 2 || to >= r.body.size()) to = r.body.size() - 1;
    r.status = 206;
    r.headers.push_back({"Content-Range", "bytes " + std::to_string(from) + "-" +
                                              std::to_string(to) + "/" +
                                              std::to_string(r.body.size())});
    r.body = r.body.substr(from, to - from + 1);
}

Reply error(int status, const std::string& code) {
    Reply r;
    r.status = status;
    r.headers.push_back({"X-Error-Code", code});
    r.body = "{\"error\":\"" + code + "\"}";
    return r;
}

}  // namespace

std::string FakeHubServer::sha256(const std::string& content) {
    return digest(EVP_sha256(), content);
}

std::string FakeHubServer::gitBlobSha1(const std::string& content) {
    return digest(EVP_sha1(),
                  "blob " + std::to_string(content.size()) + std::string(1, '\0') + content);
}

FakeHubServer::FakeHubServer() {
    m_listen = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (m_listen < 0 || ::bind(m_listen, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
        ::listen(m_listen, 16) != 0 ||
        ::getsockname(m_listen, reinterpret_cast<sockaddr*>(&address), &size) != 0)
        throw std::runtime_error("the fake Hub cannot listen on 127.0.0.1");
    m_port = ntohs(address.sin_port);
    m_thread = std::thread([this] { serve(); });
}

FakeHubServer::~FakeHubServer() {
    m_stop = true;
    m_thread.join();
    ::close(m_listen);
}

void FakeHubServer::add(FakeHubRepo repo) {
    std::lock_guard lock(m_mutex);
    if (!repo.renamedFrom.empty()) {  // the old id: a stub that only names the new one
        FakeHubRepo stub;
        stub.id = repo.id;
        m_repos[repo.renamedFrom] = std::move(stub);
    }
    m_repos[repo.id] = std::move(repo);
}

std::string FakeHubServer::endpoint() const { return "http://127.0.0.1:" + std::to_string(m_port); }

std::vector<FakeHubRequest> FakeHubServer::requests() const {
    std::lock_guard lock(m_mutex);
    return m_requests;
}

void FakeHubServer::serve() {
    while (!m_stop) {
        pollfd p{m_listen, POLLIN, 0};
        if (::poll(&p, 1, 50) <= 0) continue;
        const int socket = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
        if (socket < 0) continue;
        answer(socket);
        ::close(socket);
    }
}

void FakeHubServer::answer(int socket) {
    std::string request;
    char buffer[4096];
    while (request.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = ::recv(socket, buffer, sizeof buffer, 0);
        if (n <= 0) return;
        request.append(buffer, static_cast<size_t>(n));
    }
    // A POST's body (paths-info) follows the headers: read all Content-Length bytes of it.
    std::string lower = request;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::size_t bodyLength = 0;
    if (const size_t at = lower.find("\ncontent-length:"); at != std::string::npos)
        bodyLength = std::strtoull(request.c_str() + at + 16, nullptr, 10);
    const size_t headerEnd = request.find("\r\n\r\n") + 4;
    while (request.size() < headerEnd + bodyLength) {
        const ssize_t n = ::recv(socket, buffer, sizeof buffer, 0);
        if (n <= 0) return;
        request.append(buffer, static_cast<size_t>(n));
    }
    const std::string body = request.substr(headerEnd);
    std::istringstream lines(request);
    FakeHubRequest seen;
    std::string version, line;
    lines >> seen.method >> seen.path >> version;
    std::getline(lines, line);
    while (std::getline(lines, line) && line != "\r") {
        const size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string name = line.substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        std::string value = line.substr(colon + 1);
        value.erase(0, value.find_first_not_of(' '));
        if (!value.empty() && value.back() == '\r') value.pop_back();
        if (name == "range") seen.range = value;
        if (name == "authorization") seen.authorization = value;
    }
    std::lock_guard lock(m_mutex);
    m_requests.push_back(seen);
    const bool head = seen.method == "HEAD";
    const std::string& path = seen.path;

    // GET /cdn/SHA256: an LFS file's content.
    if (path.rfind("/cdn/", 0) == 0) {
        const std::string sha = path.substr(5);
        for (auto& [id, repo] : m_repos)
            for (const FakeHubFile& f : repo.files) {
                if (!f.lfs || sha256(f.content) != sha) continue;
                Reply r;
                r.body = f.content;
                if (f.name == repo.corruptFile) r.body[r.body.size() / 2] ^= 0x55;
                r.headers.push_back({"ETag", "\"" + sha + "\""});  // as the CDN sends one
                if (!repo.ignoreRange) applyRange(r, seen.range);
                r.bytesPerSecond = repo.bytesPerSecond;
                if (f.name == repo.dropFile && repo.drops > 0) {
                    --repo.drops;
                    r.contentLength = r.body.size();
                    r.cutAfter = repo.dropAfter;
                }
                send(socket, r, head);
                return;
            }
        send(socket, error(404, "EntryNotFound"), head);
        return;
    }

    // /api/models/ID/revision/REV and /ID/resolve/REV/FILE, ID being NAME or ORG/NAME.
    const bool api = path.rfind("/api/models/", 0) == 0;
    const std::string rest = path.substr(api ? 12 : 1);
    const bool pathsInfo = api && rest.find("/paths-info/") != std::string::npos;
    const std::string marker = pathsInfo ? "/paths-info/" : api ? "/revision/" : "/resolve/";
    const size_t at = rest.find(marker);
    if (at == std::string::npos) return send(socket, error(404, "RepoNotFound"), head);
    const std::string id = rest.substr(0, at);
    std::string revision = rest.substr(at + marker.size());
    std::string file;
    if (!api) {
        const size_t slash = revision.find('/');
        if (slash == std::string::npos) return send(socket, error(404, "EntryNotFound"), head);
        file = revision.substr(slash + 1);
        revision = revision.substr(0, slash);
    }
    const auto found = m_repos.find(id);
    if (found == m_repos.end()) return send(socket, error(401, "RepoNotFound"), head);
    const FakeHubRepo& repo = found->second;
    if (repo.commit.empty()) {  // a renamed repository: a relative redirect to the new name
        Reply r;
        r.status = 307;
        r.headers.push_back({"Location", "/" + (api ? "api/models/" : std::string()) + repo.id +
                                             marker + rest.substr(at + marker.size())});
        return send(socket, r, head);
    }
    if (revision != "main" && revision != repo.commit)
        return send(socket, error(404, "RevisionNotFound"), head);
    if (pathsInfo) {  // huggingface.js's file metadata: [{type, path, oid, size, lfs}]
        const nlohmann::json asked = nlohmann::json::parse(body, nullptr, false);
        nlohmann::json doc = nlohmann::json::array();
        for (const FakeHubFile& f : repo.files) {
            if (!asked.is_object() || !asked.contains("paths") ||
                std::find(asked["paths"].begin(), asked["paths"].end(), f.name) ==
                    asked["paths"].end())
                continue;
            nlohmann::json item{{"type", "file"},
                                {"path", f.name},
                                {"oid", gitBlobSha1(f.content)},
                                {"size", f.content.size()}};
            if (f.lfs) item["lfs"] = {{"oid", sha256(f.content)}, {"size", f.content.size()}};
            doc.push_back(item);
        }
        Reply r;
        r.body = doc.dump();
        r.headers.push_back({"Content-Type", "application/json"});
        return send(socket, r, head);
    }
    if (api) {
        nlohmann::json doc{
            {"id", repo.id}, {"sha", repo.commit}, {"siblings", nlohmann::json::array()}};
        for (const FakeHubFile& f : repo.files) doc["siblings"].push_back({{"rfilename", f.name}});
        Reply r;
        r.body = doc.dump();
        r.headers.push_back({"Content-Type", "application/json"});
        return send(socket, r, head);
    }
    if (!repo.token.empty() && seen.authorization != "Bearer " + repo.token)
        return send(socket, error(seen.authorization.empty() ? 401 : 403, "GatedRepo"), head);
    for (const FakeHubFile& f : repo.files) {
        if (f.name != file) continue;
        Reply r;
        r.headers.push_back({"X-Repo-Commit", repo.commit});
        if (f.lfs) {
            r.status = 302;
            r.headers.push_back({"Location", endpoint() + "/cdn/" + sha256(f.content)});
            r.headers.push_back({"X-Linked-Etag", "\"" + sha256(f.content) + "\""});
            r.headers.push_back({"X-Linked-Size", std::to_string(f.content.size())});
            r.headers.push_back({"ETag", "W/\"pointer-etag\""});
        } else {
            r.headers.push_back({"ETag", "\"" + gitBlobSha1(f.content) + "\""});
            r.body = f.content;
            applyRange(r, seen.range);
        }
        return send(socket, r, head);
    }
    send(socket, error(404, "EntryNotFound"), head);
}

FakeHubRepo fakeRepoFromFolder(const std::string& id, const std::string& commit,
                               const std::string& folder) {
    FakeHubRepo repo;
    repo.id = id;
    repo.commit = commit;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        if (!entry.is_regular_file()) continue;
        std::ifstream in(entry.path(), std::ios::binary);
        std::ostringstream content;
        content << in.rdbuf();
        const std::string name = entry.path().filename().string();
        repo.files.push_back({name, content.str(), entry.path().extension() == ".safetensors"});
    }
    return repo;
}

}  // namespace qkv::test
