#include "core/tokenize/regex.h"

#include <pcre2.h>

#include "core/tokenize/utf8.h"
#include "core/util/error.h"

namespace qkv {
namespace {

std::string pcre2Message(int code) {
    PCRE2_UCHAR buffer[256];
    if (pcre2_get_error_message(code, buffer, sizeof buffer) < 0)
        return "error " + std::to_string(code);
    return reinterpret_cast<const char*>(buffer);
}

}  // namespace

struct Regex::Code {
    pcre2_code* code = nullptr;
    bool jit = false;
    ~Code() { pcre2_code_free(code); }
};

Regex::Regex(std::string_view pattern, std::string_view context)
    : m_pattern(pattern), m_context(context), m_code(std::make_unique<Code>()) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    m_code->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                 PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
    if (!m_code->code)
        throw Error(m_context + ": invalid regular expression '" + m_pattern +
                    "': " + pcre2Message(error) + " at offset " + std::to_string(offset));
    // JIT is an optimisation only; without it (or when its stack runs out) the interpreter runs.
    m_code->jit = pcre2_jit_compile(m_code->code, PCRE2_JIT_COMPLETE) == 0;
}

Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

std::vector<std::pair<std::size_t, std::size_t>> Regex::findAll(std::string_view text) const {
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> data(
        pcre2_match_data_create_from_pattern(m_code->code, nullptr), &pcre2_match_data_free);
    if (!data) throw Error(m_context + ": out of memory matching '" + m_pattern + "'");
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    std::vector<std::pair<std::size_t, std::size_t>> matches;
    std::size_t start = 0;
    while (start <= text.size()) {
        int rc = pcre2_match(m_code->code, subject, text.size(), start, PCRE2_NO_UTF_CHECK,
                             data.get(), nullptr);
        if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
            rc = pcre2_match(m_code->code, subject, text.size(), start,
                             PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, data.get(), nullptr);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0)
            throw Error(m_context + ": matching '" + m_pattern + "' failed: " + pcre2Message(rc));
        const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data.get());
        const std::size_t begin = ovector[0], end = ovector[1];
        matches.emplace_back(begin, end);
        if (end > begin) {
            start = end;
        } else {
            if (end >= text.size()) break;
            start = end + utf8::sequenceLength(static_cast<unsigned char>(text[end]));
        }
    }
    return matches;
}

}  // namespace qkv
