#pragma once
// Text under normalization that remembers, for every byte, which bytes of the original input it
// came from (Hugging Face's NormalizedString, simplified), so tokens made from normalized text
// still report their span in the text the user typed.
//
// Alignment rules: an unchanged byte keeps its own original byte; a character that a rewrite
// changes maps, byte for byte, to the whole original character (or grapheme cluster, for Unicode
// normalization forms) it came from; inserted text (prepend, an empty match replaced) maps to the
// empty span at the insertion point.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/tokenize/utf8.h"

namespace qkv {

struct Span {
    std::size_t begin = 0;
    std::size_t end = 0;
};

class NormalizedText {
  public:
    enum class Form { Nfc, Nfd, Nfkc, Nfkd };

    NormalizedText() = default;
    // `text` is original[offset, offset + text.size()), aligned to itself. Must be valid UTF-8.
    NormalizedText(std::string_view text, std::size_t offset);

    const std::string& text() const { return m_text; }
    std::size_t size() const { return m_text.size(); }
    bool empty() const { return m_text.empty(); }

    // The original span that normalized bytes [begin, end) came from (the union of their
    // alignments); for an empty range, the empty span where it sits.
    Span originalSpan(std::size_t begin, std::size_t end) const;
    NormalizedText slice(std::size_t begin, std::size_t end) const;

    void prepend(std::string_view prefix);
    // Replaces each range (sorted, non-overlapping, on character boundaries) by `content`.
    void replace(const std::vector<std::pair<std::size_t, std::size_t>>& ranges,
                 std::string_view content);
    // Unicode normalization, applied per extended grapheme cluster (normalization does not
    // reach across clusters in practice, and alignment stays per cluster).
    void normalize(Form form);
    void lowercase();

    // Rewrites character by character: map(codePoint, out) appends the replacement, possibly
    // nothing, to `out`. Output that equals the input character keeps its alignment.
    template <class Map>
    void mapCharacters(Map&& map);
    // Rewrites byte by byte: map(byte, out) appends the replacement; each output byte is aligned
    // to its source byte. The output must be valid UTF-8 as a whole.
    template <class Map>
    void mapBytes(Map&& map);

  private:
    void appendRewritten(std::string_view replacement, std::size_t sourceBegin,
                         std::size_t sourceEnd, std::string& text, std::vector<Span>& spans) const;

    std::string m_text;
    std::vector<Span> m_spans;  // one per byte of m_text
};

template <class Map>
void NormalizedText::mapCharacters(Map&& map) {
    std::string text;
    std::vector<Span> spans;
    text.reserve(m_text.size());
    spans.reserve(m_text.size());
    std::string replacement;
    for (std::size_t pos = 0; pos < m_text.size();) {
        const std::size_t begin = pos;
        const char32_t cp = utf8::decode(m_text, pos);
        replacement.clear();
        map(cp, replacement);
        appendRewritten(replacement, begin, pos, text, spans);
    }
    m_text = std::move(text);
    m_spans = std::move(spans);
}

template <class Map>
void NormalizedText::mapBytes(Map&& map) {
    std::string text;
    std::vector<Span> spans;
    text.reserve(m_text.size() * 2);
    spans.reserve(m_text.size() * 2);
    for (std::size_t i = 0; i < m_text.size(); ++i) {
        const std::size_t before = text.size();
        map(static_cast<unsigned char>(m_text[i]), text);
        spans.insert(spans.end(), text.size() - before, m_spans[i]);
    }
    m_text = std::move(text);
    m_spans = std::move(spans);
}

}  // namespace qkv
