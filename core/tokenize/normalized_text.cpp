#include "core/tokenize/normalized_text.h"

#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "core/tokenize/unicode_props.h"
#include "core/util/error.h"

namespace qkv {
namespace {

utf8proc_option_t formOptions(NormalizedText::Form form) {
    const auto stable = UTF8PROC_STABLE;
    switch (form) {
        case NormalizedText::Form::Nfc:
            return utf8proc_option_t(stable | UTF8PROC_COMPOSE);
        case NormalizedText::Form::Nfd:
            return utf8proc_option_t(stable | UTF8PROC_DECOMPOSE);
        case NormalizedText::Form::Nfkc:
            return utf8proc_option_t(stable | UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
        case NormalizedText::Form::Nfkd:
            return utf8proc_option_t(stable | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT);
    }
    return UTF8PROC_STABLE;
}

bool isAscii(std::string_view text) {
    return std::all_of(text.begin(), text.end(),
                       [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

}  // namespace

NormalizedText::NormalizedText(std::string_view text, std::size_t offset) : m_text(text) {
    m_spans.resize(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) m_spans[i] = {offset + i, offset + i + 1};
}

Span NormalizedText::originalSpan(std::size_t begin, std::size_t end) const {
    if (begin >= end) {
        if (begin < m_spans.size()) return {m_spans[begin].begin, m_spans[begin].begin};
        if (!m_spans.empty()) return {m_spans.back().end, m_spans.back().end};
        return {};
    }
    Span span = m_spans[begin];
    for (std::size_t i = begin + 1; i < end; ++i) {
        span.begin = std::min(span.begin, m_spans[i].begin);
        span.end = std::max(span.end, m_spans[i].end);
    }
    return span;
}

NormalizedText NormalizedText::slice(std::size_t begin, std::size_t end) const {
    NormalizedText out;
    out.m_text = m_text.substr(begin, end - begin);
    out.m_spans.assign(m_spans.begin() + begin, m_spans.begin() + end);
    return out;
}

void NormalizedText::prepend(std::string_view prefix) {
    if (m_text.empty()) return;
    const std::size_t at = m_spans.front().begin;
    m_text.insert(0, prefix);
    m_spans.insert(m_spans.begin(), prefix.size(), Span{at, at});
}

void NormalizedText::replace(const std::vector<std::pair<std::size_t, std::size_t>>& ranges,
                             std::string_view content) {
    if (ranges.empty()) return;
    std::string text;
    std::vector<Span> spans;
    text.reserve(m_text.size());
    spans.reserve(m_text.size());
    std::size_t copied = 0;
    for (const auto& [begin, end] : ranges) {
        text.append(m_text, copied, begin - copied);
        spans.insert(spans.end(), m_spans.begin() + copied, m_spans.begin() + begin);
        text.append(content);
        spans.insert(spans.end(), content.size(), originalSpan(begin, end));
        copied = end;
    }
    text.append(m_text, copied);
    spans.insert(spans.end(), m_spans.begin() + copied, m_spans.end());
    m_text = std::move(text);
    m_spans = std::move(spans);
}

void NormalizedText::appendRewritten(std::string_view replacement, std::size_t sourceBegin,
                                     std::size_t sourceEnd, std::string& text,
                                     std::vector<Span>& spans) const {
    text.append(replacement);
    if (replacement == std::string_view(m_text).substr(sourceBegin, sourceEnd - sourceBegin)) {
        spans.insert(spans.end(), m_spans.begin() + sourceBegin, m_spans.begin() + sourceEnd);
    } else {
        spans.insert(spans.end(), replacement.size(), originalSpan(sourceBegin, sourceEnd));
    }
}

void NormalizedText::normalize(Form form) {
    if (isAscii(m_text)) return;  // ASCII is invariant under every normalization form
    const utf8proc_option_t options = formOptions(form);
    std::string text;
    std::vector<Span> spans;
    text.reserve(m_text.size());
    spans.reserve(m_text.size());
    std::size_t pos = 0;
    while (pos < m_text.size()) {
        // One extended grapheme cluster: [begin, pos).
        const std::size_t begin = pos;
        utf8proc_int32_t state = 0;
        char32_t previous = utf8::decode(m_text, pos);
        while (pos < m_text.size()) {
            std::size_t next = pos;
            const char32_t cp = utf8::decode(m_text, next);
            if (utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(previous),
                                                 static_cast<utf8proc_int32_t>(cp), &state))
                break;
            previous = cp;
            pos = next;
        }
        const std::string_view cluster = std::string_view(m_text).substr(begin, pos - begin);
        if (isAscii(cluster)) {
            appendRewritten(cluster, begin, pos, text, spans);
            continue;
        }
        utf8proc_uint8_t* mapped = nullptr;
        const utf8proc_ssize_t length =
            utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(cluster.data()),
                         static_cast<utf8proc_ssize_t>(cluster.size()), &mapped, options);
        const std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owner(mapped, &std::free);
        if (length < 0)
            throw Error(std::string("Unicode normalization failed: ") + utf8proc_errmsg(length));
        appendRewritten(std::string_view(reinterpret_cast<const char*>(mapped),
                                         static_cast<std::size_t>(length)),
                        begin, pos, text, spans);
    }
    m_text = std::move(text);
    m_spans = std::move(spans);
}

void NormalizedText::lowercase() {
    mapCharacters([](char32_t cp, std::string& out) {
        if (cp < 0x80)
            out += static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
        else
            unicode::appendLowercase(out, cp);
    });
}

}  // namespace qkv
