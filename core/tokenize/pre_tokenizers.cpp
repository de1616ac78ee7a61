#include "core/tokenize/pre_tokenizers.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "core/tokenize/byte_level.h"
#include "core/tokenize/json_file.h"
#include "core/tokenize/regex.h"
#include "core/tokenize/text_pattern.h"
#include "core/tokenize/unicode_props.h"

namespace qkv {
namespace {

using Ranges = std::vector<std::pair<std::size_t, std::size_t>>;

// Hugging Face's SplitDelimiterBehavior.
enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

// Splits `piece` at `delimiters` (sorted matches) the way NormalizedString::split does.
void splitPiece(const NormalizedText& piece, const Ranges& delimiters, Behavior behavior,
                bool invert, std::vector<NormalizedText>& out) {
    struct Part {
        std::size_t begin, end;
        bool match;
    };
    std::vector<Part> parts;  // covers the piece: gaps are non-matches
    std::size_t previous = 0;
    for (const auto& [begin, end] : delimiters) {
        if (previous != begin) parts.push_back({previous, begin, invert});
        parts.push_back({begin, end, !invert});
        previous = end;
    }
    if (previous != piece.size()) parts.push_back({previous, piece.size(), invert});

    std::vector<Part> splits;  // `match` now means "remove"
    bool previousMatch = false;
    switch (behavior) {
        case Behavior::Removed:
            splits = parts;
            break;
        case Behavior::Isolated:
            for (Part p : parts) splits.push_back({p.begin, p.end, false});
            break;
        case Behavior::Contiguous:
            for (const Part& p : parts) {
                if (p.match == previousMatch && !splits.empty())
                    splits.back().end = p.end;
                else
                    splits.push_back({p.begin, p.end, false});
                previousMatch = p.match;
            }
            break;
        case Behavior::MergedWithPrevious:
            for (const Part& p : parts) {
                if (p.match && !previousMatch && !splits.empty())
                    splits.back().end = p.end;
                else
                    splits.push_back({p.begin, p.end, false});
                previousMatch = p.match;
            }
            break;
        case Behavior::MergedWithNext:
            for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
                if (it->match && !previousMatch && !splits.empty())
                    splits.back().begin = it->begin;
                else
                    splits.push_back({it->begin, it->end, false});
                previousMatch = it->match;
            }
            std::reverse(splits.begin(), splits.end());
            break;
    }
    for (const Part& s : splits)
        if (!s.match && s.end > s.begin) out.push_back(piece.slice(s.begin, s.end));
}

// Every character for which `predicate` holds is a delimiter of its own.
Ranges characterMatches(const std::string& text, const std::function<bool(char32_t)>& predicate) {
    Ranges matches;
    for (std::size_t pos = 0; pos < text.size();) {
        const std::size_t begin = pos;
        if (predicate(utf8::decode(text, pos))) matches.emplace_back(begin, pos);
    }
    return matches;
}

// Applies `splitOne` to every piece and collects the results.
template <class SplitOne>
void splitAll(std::vector<NormalizedText>& pieces, SplitOne&& splitOne) {
    std::vector<NormalizedText> out;
    out.reserve(pieces.size());
    for (NormalizedText& piece : pieces) splitOne(piece, out);
    pieces = std::move(out);
}

class SequencePreTokenizer final : public PreTokenizer {
  public:
    explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> steps)
        : m_steps(std::move(steps)) {}
    void split(std::vector<NormalizedText>& pieces) const override {
        for (const auto& step : m_steps) step->split(pieces);
    }

  private:
    std::vector<std::unique_ptr<PreTokenizer>> m_steps;
};

class ByteLevelPreTokenizer final : public PreTokenizer {
  public:
    ByteLevelPreTokenizer(bool addPrefixSpace, bool useRegex) : m_addPrefixSpace(addPrefixSpace) {
        if (useRegex) m_regex.emplace(byte_level::kGpt2Pattern, "ByteLevel pre-tokenizer");
    }
    void split(std::vector<NormalizedText>& pieces) const override {
        splitAll(pieces, [&](NormalizedText& piece, std::vector<NormalizedText>& out) {
            if (m_addPrefixSpace && !piece.text().starts_with(' ')) piece.prepend(" ");
            if (m_regex) {
                splitPiece(piece, m_regex->findAll(piece.text()), Behavior::Isolated, false, out);
            } else if (!piece.empty()) {
                out.push_back(std::move(piece));
            }
        });
        for (NormalizedText& piece : pieces)
            piece.mapBytes([](unsigned char b, std::string& out) { out += byte_level::charOf(b); });
    }

  private:
    bool m_addPrefixSpace;
    std::optional<Regex> m_regex;
};

class MetaspacePreTokenizer final : public PreTokenizer {
  public:
    enum class Prepend { Always, First, Never };
    MetaspacePreTokenizer(std::string replacement, Prepend prepend, bool split)
        : m_replacement(std::move(replacement)), m_prepend(prepend), m_split(split) {}
    void split(std::vector<NormalizedText>& pieces) const override {
        splitAll(pieces, [&](NormalizedText& piece, std::vector<NormalizedText>& out) {
            piece.replace(characterMatches(piece.text(), [](char32_t c) { return c == ' '; }),
                          m_replacement);
            const bool prepend =
                m_prepend == Prepend::Always ||
                (m_prepend == Prepend::First && piece.originalSpan(0, piece.size()).begin == 0);
            if (prepend && !piece.text().starts_with(m_replacement)) piece.prepend(m_replacement);
            if (!m_split) {
                if (!piece.empty()) out.push_back(std::move(piece));
                return;
            }
            Ranges delimiters;
            const std::string& s = piece.text();
            for (std::size_t pos = s.find(m_replacement); pos != std::string::npos;
                 pos = s.find(m_replacement, pos + m_replacement.size()))
                delimiters.emplace_back(pos, pos + m_replacement.size());
            splitPiece(piece, delimiters, Behavior::MergedWithNext, false, out);
        });
    }

  private:
    std::string m_replacement;
    Prepend m_prepend;
    bool m_split;
};

// Splits at regex or literal matches (Split, Whitespace).
class PatternPreTokenizer final : public PreTokenizer {
  public:
    PatternPreTokenizer(TextPattern pattern, Behavior behavior, bool invert)
        : m_pattern(std::move(pattern)), m_behavior(behavior), m_invert(invert) {}
    void split(std::vector<NormalizedText>& pieces) const override {
        splitAll(pieces, [&](NormalizedText& piece, std::vector<NormalizedText>& out) {
            splitPiece(piece, m_pattern.findAll(piece.text()), m_behavior, m_invert, out);
        });
    }

  private:
    TextPattern m_pattern;
    Behavior m_behavior;
    bool m_invert;
};

// Splits at every character of a class (WhitespaceSplit, Digits, Punctuation).
class CharacterPreTokenizer final : public PreTokenizer {
  public:
    CharacterPreTokenizer(std::function<bool(char32_t)> predicate, Behavior behavior)
        : m_predicate(std::move(predicate)), m_behavior(behavior) {}
    void split(std::vector<NormalizedText>& pieces) const override {
        splitAll(pieces, [&](NormalizedText& piece, std::vector<NormalizedText>& out) {
            splitPiece(piece, characterMatches(piece.text(), m_predicate), m_behavior, false, out);
        });
    }

  private:
    std::function<bool(char32_t)> m_predicate;
    Behavior m_behavior;
};

Behavior parseBehavior(const nlohmann::json& spec, const char* fallback, const std::string& where) {
    const std::string name = json::stringOr(spec, "behavior", fallback, where);
    if (name == "Removed") return Behavior::Removed;
    if (name == "Isolated") return Behavior::Isolated;
    if (name == "MergedWithPrevious") return Behavior::MergedWithPrevious;
    if (name == "MergedWithNext") return Behavior::MergedWithNext;
    if (name == "Contiguous") return Behavior::Contiguous;
    json::fail(where + ".behavior", "unknown split behavior '" + name + "'");
}

MetaspacePreTokenizer::Prepend parsePrependScheme(const nlohmann::json& spec,
                                                  const std::string& where) {
    using Prepend = MetaspacePreTokenizer::Prepend;
    if (const nlohmann::json* scheme = json::find(spec, "prepend_scheme", where)) {
        const std::string name = json::asString(*scheme, where + ".prepend_scheme");
        if (name == "always") return Prepend::Always;
        if (name == "first") return Prepend::First;
        if (name == "never") return Prepend::Never;
        json::fail(where + ".prepend_scheme", "unknown prepend scheme '" + name + "'");
    }
    return json::boolOr(spec, "add_prefix_space", true, where) ? Prepend::Always : Prepend::Never;
}

// Hugging Face's Metaspace replaces each space with one character; an empty replacement would
// make every position a delimiter.
std::string parseReplacement(const nlohmann::json& spec, const std::string& where) {
    const std::string replacement = json::stringOr(spec, "replacement", "\u2581", where);
    std::size_t end = 0;
    if (!replacement.empty()) utf8::decode(replacement, end);
    if (replacement.empty() || end != replacement.size())
        json::fail(where + ".replacement", "must be exactly one character");
    return replacement;
}

std::unique_ptr<PreTokenizer> parse(const nlohmann::json& spec, const std::string& where,
                                    int depth) {
    if (spec.is_null()) return nullptr;
    if (depth > json::kMaxNesting) json::fail(where, "nested too deeply");
    const std::string type = json::asString(json::require(spec, "type", where), where + ".type");
    if (type == "Sequence") {
        const nlohmann::json& list = json::require(spec, "pretokenizers", where);
        if (!list.is_array()) json::fail(where + ".pretokenizers", "expected an array");
        std::vector<std::unique_ptr<PreTokenizer>> steps;
        for (std::size_t i = 0; i < list.size(); ++i)
            if (auto step =
                    parse(list[i], where + ".pretokenizers[" + std::to_string(i) + "]", depth + 1))
                steps.push_back(std::move(step));
        return std::make_unique<SequencePreTokenizer>(std::move(steps));
    }
    if (type == "ByteLevel")
        return std::make_unique<ByteLevelPreTokenizer>(
            json::boolOr(spec, "add_prefix_space", true, where),
            json::boolOr(spec, "use_regex", true, where));
    if (type == "Metaspace")
        return std::make_unique<MetaspacePreTokenizer>(parseReplacement(spec, where),
                                                       parsePrependScheme(spec, where),
                                                       json::boolOr(spec, "split", true, where));
    if (type == "Split")
        return std::make_unique<PatternPreTokenizer>(
            TextPattern(json::require(spec, "pattern", where), where + ".pattern"),
            parseBehavior(spec, "Isolated", where), json::boolOr(spec, "invert", false, where));
    if (type == "Whitespace")  // keeps the matches of \w+|[^\w\s]+
        return std::make_unique<PatternPreTokenizer>(
            TextPattern(nlohmann::json{{"Regex", "\\w+|[^\\w\\s]+"}}, where), Behavior::Removed,
            true);
    if (type == "WhitespaceSplit")
        return std::make_unique<CharacterPreTokenizer>(unicode::isWhiteSpace, Behavior::Removed);
    if (type == "Digits")
        return std::make_unique<CharacterPreTokenizer>(
            unicode::isNumeric, json::boolOr(spec, "individual_digits", false, where)
                                    ? Behavior::Isolated
                                    : Behavior::Contiguous);
    if (type == "Punctuation")
        return std::make_unique<CharacterPreTokenizer>(
            [](char32_t c) {
                return (c < 0x80 && std::ispunct(static_cast<int>(c))) ||
                       unicode::isPunctuationCategory(c);
            },
            parseBehavior(spec, "Isolated", where));
    json::fail(where, "pre-tokenizer type '" + type + "' is not supported");
}

}  // namespace

std::unique_ptr<PreTokenizer> parsePreTokenizer(const nlohmann::json& spec,
                                                const std::string& where) {
    return parse(spec, where, 0);
}

std::string metaspaceAsSpaces(std::string_view piece) {
    static constexpr std::string_view kBoundary = "\u2581";
    std::string out;
    for (std::size_t pos = 0; pos < piece.size();) {
        if (piece.substr(pos, kBoundary.size()) == kBoundary) {
            out += ' ';
            pos += kBoundary.size();
        } else {
            out += piece[pos++];
        }
    }
    return out;
}

}  // namespace qkv
