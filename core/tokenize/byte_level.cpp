#include "core/tokenize/byte_level.h"

#include <array>
#include <unordered_map>

#include "core/tokenize/utf8.h"

namespace qkv::byte_level {
namespace {

#define QKV_WS "\\t-\\r\\x{85}\\p{Z}"
constexpr char kPattern[] = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^" QKV_WS
                            "\\p{L}\\p{N}]+|[" QKV_WS "]+(?![^" QKV_WS "])|[" QKV_WS "]+";
#undef QKV_WS

struct Tables {
    std::array<std::string, 256> chars;
    std::unordered_map<char32_t, unsigned char> bytes;

    Tables() {
        int extra = 0;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
            const char32_t cp = printable ? static_cast<char32_t>(b) : 256 + extra++;
            utf8::append(chars[b], cp);
            bytes.emplace(cp, static_cast<unsigned char>(b));
        }
    }
};

const Tables& tables() {
    static const Tables instance;
    return instance;
}

}  // namespace

const std::string_view kGpt2Pattern = kPattern;

const std::string& charOf(unsigned char byte) { return tables().chars[byte]; }

std::optional<std::string> decode(std::string_view piece) {
    const auto& bytes = tables().bytes;
    std::string out;
    out.reserve(piece.size());
    for (std::size_t pos = 0; pos < piece.size();) {
        const auto it = bytes.find(utf8::decode(piece, pos));
        if (it == bytes.end()) return std::nullopt;
        out += static_cast<char>(it->second);
    }
    return out;
}

}  // namespace qkv::byte_level
