#include "core/tokenize/added_tokens.h"

#include <algorithm>

#include "core/tokenize/unicode_props.h"
#include "core/tokenize/utf8.h"

namespace qkv {
namespace {

// The code point that ends at `end` (valid UTF-8, end > 0).
char32_t lastCharBefore(std::string_view text, std::size_t end, std::size_t& begin) {
    begin = end - 1;
    while (begin > 0 && utf8::isContinuation(text[begin])) --begin;
    std::size_t pos = begin;
    return utf8::decode(text, pos);
}

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<AddedToken> tokens) : m_byFirstByte(256) {
    std::erase_if(tokens, [](const AddedToken& t) { return t.content.empty(); });
    std::stable_sort(tokens.begin(), tokens.end(), [](const AddedToken& a, const AddedToken& b) {
        return a.content.size() > b.content.size();
    });
    m_tokens = std::move(tokens);
    for (std::size_t i = 0; i < m_tokens.size(); ++i)
        m_byFirstByte[static_cast<unsigned char>(m_tokens[i].content[0])].push_back(
            static_cast<int>(i));
}

std::vector<TextSegment> AddedTokenMatcher::split(std::string_view text) const {
    std::vector<TextSegment> segments;
    if (m_tokens.empty()) {
        if (!text.empty()) segments.push_back({0, text.size(), -1});
        return segments;
    }
    std::size_t plainBegin = 0;  // start of the text not yet assigned to a segment
    std::size_t pos = 0;
    while (pos < text.size()) {
        const AddedToken* match = nullptr;
        for (int index : m_byFirstByte[static_cast<unsigned char>(text[pos])]) {
            if (text.substr(pos).starts_with(m_tokens[index].content)) {
                match = &m_tokens[index];
                break;
            }
        }
        if (!match) {
            ++pos;
            continue;
        }
        std::size_t start = pos;
        std::size_t stop = pos + match->content.size();
        pos = stop;
        if (match->singleWord) {
            std::size_t before = 0;
            const bool wordBefore =
                start > 0 && unicode::isWordChar(lastCharBefore(text, start, before));
            std::size_t after = stop;
            const bool wordAfter =
                stop < text.size() && unicode::isWordChar(utf8::decode(text, after));
            if (wordBefore || wordAfter) continue;
        }
        if (match->lstrip) {
            std::size_t newStart = start;
            while (newStart > plainBegin) {
                std::size_t charBegin = 0;
                if (!unicode::isWhiteSpace(lastCharBefore(text, newStart, charBegin))) break;
                newStart = charBegin;
            }
            start = newStart;
        }
        if (match->rstrip) {
            while (stop < text.size()) {
                std::size_t next = stop;
                if (!unicode::isWhiteSpace(utf8::decode(text, next))) break;
                stop = next;
            }
        }
        if (plainBegin < start) segments.push_back({plainBegin, start, -1});
        segments.push_back({start, stop, match->id});
        plainBegin = stop;
        pos = std::max(pos, stop);
    }
    if (plainBegin < text.size()) segments.push_back({plainBegin, text.size(), -1});
    return segments;
}

}  // namespace qkv
