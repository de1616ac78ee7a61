#pragma once
// HTTP(S) requests through libcurl, the few ways the Hub client needs them: a HEAD that stops at
// the first response (so a redirect's headers can be read), a GET of a small body, and a GET
// streamed to a sink from a byte offset (Range) that follows redirects. HTTP statuses are
// returned; only transfers that could not complete throw (HttpError).
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/util/error.h"

namespace qkv {

struct HttpResponse {
    long status = 0;
    std::map<std::string, std::string> headers;  // names in lower case; the last response's
    std::string body;

    std::string header(const std::string& lowerCaseName) const;
};

class HttpError : public Error {
  public:
    enum class Kind { Unreachable, Dropped, SinkFailed, Cancelled };
    HttpError(Kind kind, const std::string& message) : Error(message), m_kind(kind) {}
    Kind kind() const { return m_kind; }

  private:
    Kind m_kind;
};

class HttpClient {
  public:
    // `headers` go with every request ("Authorization: Bearer …"); libcurl does not pass an
    // Authorization header on to another host when it follows a redirect.
    explicit HttpClient(std::vector<std::string> headers = {});

    HttpResponse head(const std::string& url) const;
    HttpResponse get(const std::string& url) const;  // body in memory; follows redirects

    // Receives the body in pieces with the position in the file where each belongs: from the
    // offset on for a partial answer (206), from 0 when the server sent the whole file (200).
    // Returns false to stop the transfer (a failed write).
    using Sink = std::function<bool(const char* data, size_t size, std::uint64_t position)>;
    // Asked now and then whether to go on; returns false to cancel.
    using Listener = std::function<bool()>;
    // GET from byte `offset` on (a Range request when offset > 0), following redirects. The
    // body goes to `sink` only for a 2xx status; other statuses are returned with their body.
    HttpResponse download(const std::string& url, std::uint64_t offset, const Sink& sink,
                          const Listener& listener) const;

    // `text` with every character outside [A-Za-z0-9-._~] percent-encoded; '/' kept when
    // keepSlash.
    static std::string escape(const std::string& text, bool keepSlash);

  private:
    std::vector<std::string> m_headers;
};

}  // namespace qkv
