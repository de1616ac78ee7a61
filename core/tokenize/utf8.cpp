#include "core/tokenize/utf8.h"

#include <cstdio>

#include "core/util/error.h"

namespace qkv::utf8 {
namespace {

// Length of the valid sequence at `pos`, or 0 when the bytes there are not valid UTF-8.
std::size_t validSequenceAt(std::string_view text, std::size_t pos) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(pos);
    if (lead < 0x80) return 1;
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) low = 0xA0;   // overlong
        if (lead == 0xED) high = 0x9F;  // surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) low = 0x90;   // overlong
        if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
    } else {
        return 0;
    }
    if (pos + length > text.size()) return 0;
    if (byte(pos + 1) < low || byte(pos + 1) > high) return 0;
    for (std::size_t i = 2; i < length; ++i)
        if (!isContinuation(byte(pos + i))) return 0;
    return length;
}

std::size_t firstInvalid(std::string_view text) {
    for (std::size_t pos = 0; pos < text.size();) {
        const std::size_t length = validSequenceAt(text, pos);
        if (length == 0) return pos;
        pos += length;
    }
    return std::string_view::npos;
}

}  // namespace

void validate(std::string_view text, std::string_view what) {
    const std::size_t bad = firstInvalid(text);
    if (bad != std::string_view::npos)
        throw Error(std::string(what) + " is not valid UTF-8 (byte offset " + std::to_string(bad) +
                    ")");
}

char32_t decode(std::string_view text, std::size_t& pos) {
    const auto lead = static_cast<unsigned char>(text[pos]);
    const std::size_t length = sequenceLength(lead);
    char32_t cp = length == 1   ? lead
                  : length == 2 ? (lead & 0x1F)
                  : length == 3 ? (lead & 0x0F)
                                : (lead & 0x07);
    for (std::size_t i = 1; i < length; ++i)
        cp = (cp << 6) | (static_cast<unsigned char>(text[pos + i]) & 0x3F);
    pos += length;
    return cp;
}

void append(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::string escapeInvalid(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    for (std::size_t pos = 0; pos < bytes.size();) {
        if (const std::size_t length = validSequenceAt(bytes, pos)) {
            out.append(bytes.substr(pos, length));
            pos += length;
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "<0x%02X>", static_cast<unsigned char>(bytes[pos]));
            out += hex;
            ++pos;
        }
    }
    return out;
}

void widenToCharacters(std::string_view text, std::size_t& begin, std::size_t& end) {
    while (begin > 0 && begin < text.size() && isContinuation(text[begin])) --begin;
    while (end < text.size() && end > begin && isContinuation(text[end])) ++end;
}

}  // namespace qkv::utf8
