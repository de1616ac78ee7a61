#include "core/hub/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>

namespace qkv {
namespace {

// A connection that cannot be made within this time is a network that is not there; a
// transfer that stalls this long is a dead one (both fail instead of hanging).
constexpr long kConnectTimeoutSeconds = 15;
constexpr long kStallSeconds = 60;

void initialiseCurlOnce() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Transfer {
    CURL* curl = nullptr;
    HttpResponse response;
    const HttpClient::Sink* sink = nullptr;
    const HttpClient::Listener* listener = nullptr;
    std::uint64_t offset = 0;  // asked for with Range
    std::uint64_t received = 0;
    bool sinkFailed = false;
    bool cancelled = false;
};

size_t onHeader(char* data, size_t size, size_t count, void* user) {
    auto& t = *static_cast<Transfer*>(user);
    const std::string line(data, size * count);
    if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a redirect) starts afresh
        t.response.headers.clear();
        t.response.body.clear();
        return size * count;
    }
    const size_t colon = line.find(':');
    if (colon == std::string::npos) return size * count;
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    size_t start = colon + 1;
    size_t end = line.size();
    while (start < end && std::isspace(static_cast<unsigned char>(line[start]))) ++start;
    while (end > start && std::isspace(static_cast<unsigned char>(line[end - 1]))) --end;
    t.response.headers[name] = line.substr(start, end - start);
    return size * count;
}

// A success body goes to the sink when there is one; anything else (an error page) is kept.
size_t onBody(char* data, size_t size, size_t count, void* user) {
    auto& t = *static_cast<Transfer*>(user);
    const size_t bytes = size * count;
    long status = 0;
    curl_easy_getinfo(t.curl, CURLINFO_RESPONSE_CODE, &status);
    if (!t.sink || status < 200 || status > 299) {
        if (t.response.body.size() < (1u << 20)) t.response.body.append(data, bytes);
        return bytes;
    }
    const std::uint64_t position = (status == 206 ? t.offset : 0) + t.received;
    if (!(*t.sink)(data, bytes, position)) {
        t.sinkFailed = true;
        return 0;
    }
    t.received += bytes;
    return bytes;
}

int onProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto& t = *static_cast<Transfer*>(user);
    if (t.listener && *t.listener && !(*t.listener)()) {
        t.cancelled = true;
        return 1;
    }
    return 0;
}

enum class Redirects { Stop, Follow };

HttpResponse perform(const std::string& url, const std::vector<std::string>& headers, bool head,
                     Redirects redirects, std::uint64_t offset, const HttpClient::Sink* sink,
                     const HttpClient::Listener* listener) {
    initialiseCurlOnce();
    const std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), &curl_easy_cleanup);
    if (!curl) throw HttpError(HttpError::Kind::Unreachable, "cannot start an HTTP transfer");
    curl_slist* list = nullptr;
    for (const std::string& h : headers) list = curl_slist_append(list, h.c_str());
    // Sizes must be the file's own, never those of a compressed transfer.
    list = curl_slist_append(list, "Accept-Encoding: identity");
    const std::unique_ptr<curl_slist, void (*)(curl_slist*)> headerList(list, &curl_slist_free_all);

    Transfer t;
    t.curl = curl.get();
    t.sink = sink;
    t.listener = listener;
    t.offset = offset;
    char errorText[CURL_ERROR_SIZE] = {};
    CURL* c = curl.get();
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "qkvlab (libcurl)");
    curl_easy_setopt(c, CURLOPT_NOBODY, head ? 1L : 0L);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, redirects == Redirects::Follow ? 1L : 0L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, kConnectTimeoutSeconds);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, kStallSeconds);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errorText);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, &onHeader);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &onBody);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, &onProgress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
    const std::string range = std::to_string(offset) + "-";
    if (offset > 0) curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());

    const CURLcode code = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &t.response.status);
    if (code == CURLE_OK) return t.response;
    const std::string reason = errorText[0] ? errorText : curl_easy_strerror(code);
    if (t.cancelled || code == CURLE_ABORTED_BY_CALLBACK)
        throw HttpError(HttpError::Kind::Cancelled, "cancelled");
    if (t.sinkFailed) throw HttpError(HttpError::Kind::SinkFailed, reason);
    if (t.received > 0 || code == CURLE_PARTIAL_FILE || code == CURLE_OPERATION_TIMEDOUT ||
        code == CURLE_RECV_ERROR)
        throw HttpError(HttpError::Kind::Dropped, reason);
    throw HttpError(HttpError::Kind::Unreachable, reason);
}

}  // namespace

std::string HttpResponse::header(const std::string& lowerCaseName) const {
    const auto it = headers.find(lowerCaseName);
    return it == headers.end() ? std::string() : it->second;
}

HttpClient::HttpClient(std::vector<std::string> headers) : m_headers(std::move(headers)) {}

HttpResponse HttpClient::head(const std::string& url) const {
    return perform(url, m_headers, true, Redirects::Stop, 0, nullptr, nullptr);
}

HttpResponse HttpClient::get(const std::string& url) const {
    return perform(url, m_headers, false, Redirects::Follow, 0, nullptr, nullptr);
}

HttpResponse HttpClient::download(const std::string& url, std::uint64_t offset, const Sink& sink,
                                  const Listener& listener) const {
    return perform(url, m_headers, false, Redirects::Follow, offset, &sink, &listener);
}

std::string HttpClient::escape(const std::string& text, bool keepSlash) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' ||
            (keepSlash && c == '/')) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

}  // namespace qkv
