#include "core/tokenize/token_label.h"

#include <utf8proc.h>

#include <algorithm>

#include "core/tokenize/tokenizer.h"
#include "core/tokenize/utf8.h"

namespace qkv {
namespace {

int charWidth(std::string_view text, std::size_t& pos) {
    return std::max(0, utf8proc_charwidth(static_cast<utf8proc_int32_t>(utf8::decode(text, pos))));
}

}  // namespace

std::string tokenLabelOf(std::string_view displayText) {
    std::string text;
    for (char c : displayText) {
        if (c == '\n')
            text += "↵";
        else if (c == '\t')
            text += "⇥";
        else if (c == '\r')
            text += "␍";
        else
            text += c;
    }
    const auto first = text.find_first_not_of(' ');
    if (first == std::string::npos) return "␣";
    return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

std::string tokenLabel(const Tokenizer* tokenizer, int id, const std::string& piece) {
    if (!tokenizer || id < 0 || id >= tokenizer->vocabSize()) return piece;
    return tokenLabelOf(tokenizer->displayText(id));  // valid UTF-8 (tokenizer.h)
}

int displayWidth(std::string_view text) {
    int width = 0;
    for (std::size_t pos = 0; pos < text.size();) width += charWidth(text, pos);
    return width;
}

std::string rightAligned(std::string_view text, int width) {
    std::string kept;
    int used = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        const std::size_t start = pos;
        const int w = charWidth(text, pos);
        if (used + w > width) break;
        used += w;
        kept.append(text.substr(start, pos - start));
    }
    return std::string(static_cast<std::size_t>(width - used), ' ') + kept;
}

}  // namespace qkv
