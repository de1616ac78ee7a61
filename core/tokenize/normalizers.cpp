#include "core/tokenize/normalizers.h"

#include <nlohmann/json.hpp>
#include <vector>

#include "core/tokenize/json_file.h"
#include "core/tokenize/text_pattern.h"
#include "core/tokenize/unicode_props.h"

namespace qkv {
namespace {

class SequenceNormalizer final : public Normalizer {
  public:
    explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> steps)
        : m_steps(std::move(steps)) {}
    void normalize(NormalizedText& text) const override {
        for (const auto& step : m_steps) step->normalize(text);
    }

  private:
    std::vector<std::unique_ptr<Normalizer>> m_steps;
};

class PrependNormalizer final : public Normalizer {
  public:
    explicit PrependNormalizer(std::string prefix) : m_prefix(std::move(prefix)) {}
    void normalize(NormalizedText& text) const override { text.prepend(m_prefix); }

  private:
    std::string m_prefix;
};

class ReplaceNormalizer final : public Normalizer {
  public:
    ReplaceNormalizer(TextPattern pattern, std::string content)
        : m_pattern(std::move(pattern)), m_content(std::move(content)) {}
    void normalize(NormalizedText& text) const override {
        text.replace(m_pattern.findAll(text.text()), m_content);
    }

  private:
    TextPattern m_pattern;
    std::string m_content;
};

class FormNormalizer final : public Normalizer {
  public:
    explicit FormNormalizer(NormalizedText::Form form) : m_form(form) {}
    void normalize(NormalizedText& text) const override { text.normalize(m_form); }

  private:
    NormalizedText::Form m_form;
};

class LowercaseNormalizer final : public Normalizer {
  public:
    void normalize(NormalizedText& text) const override { text.lowercase(); }
};

class StripNormalizer final : public Normalizer {
  public:
    StripNormalizer(bool left, bool right) : m_left(left), m_right(right) {}
    void normalize(NormalizedText& text) const override {
        const std::string& s = text.text();
        std::size_t begin = 0, end = s.size();
        if (m_left) {
            while (begin < end) {
                std::size_t next = begin;
                if (!unicode::isWhiteSpace(utf8::decode(s, next))) break;
                begin = next;
            }
        }
        if (m_right) {
            while (end > begin) {
                std::size_t start = end - 1;
                while (start > begin && utf8::isContinuation(s[start])) --start;
                std::size_t pos = start;
                if (!unicode::isWhiteSpace(utf8::decode(s, pos))) break;
                end = start;
            }
        }
        if (begin > 0 || end < s.size()) text = text.slice(begin, end);
    }

  private:
    bool m_left;
    bool m_right;
};

std::unique_ptr<Normalizer> parse(const nlohmann::json& spec, const std::string& where, int depth) {
    if (spec.is_null()) return nullptr;
    if (depth > json::kMaxNesting) json::fail(where, "nested too deeply");
    const std::string type = json::asString(json::require(spec, "type", where), where + ".type");
    if (type == "Sequence") {
        const nlohmann::json& list = json::require(spec, "normalizers", where);
        if (!list.is_array()) json::fail(where + ".normalizers", "expected an array");
        std::vector<std::unique_ptr<Normalizer>> steps;
        for (std::size_t i = 0; i < list.size(); ++i)
            if (auto step =
                    parse(list[i], where + ".normalizers[" + std::to_string(i) + "]", depth + 1))
                steps.push_back(std::move(step));
        return std::make_unique<SequenceNormalizer>(std::move(steps));
    }
    if (type == "Prepend")
        return std::make_unique<PrependNormalizer>(
            json::asString(json::require(spec, "prepend", where), where + ".prepend"));
    if (type == "Replace")
        return std::make_unique<ReplaceNormalizer>(
            TextPattern(json::require(spec, "pattern", where), where + ".pattern"),
            json::asString(json::require(spec, "content", where), where + ".content"));
    if (type == "NFC") return std::make_unique<FormNormalizer>(NormalizedText::Form::Nfc);
    if (type == "NFD") return std::make_unique<FormNormalizer>(NormalizedText::Form::Nfd);
    if (type == "NFKC") return std::make_unique<FormNormalizer>(NormalizedText::Form::Nfkc);
    if (type == "NFKD") return std::make_unique<FormNormalizer>(NormalizedText::Form::Nfkd);
    if (type == "Lowercase") return std::make_unique<LowercaseNormalizer>();
    if (type == "Strip")
        return std::make_unique<StripNormalizer>(json::boolOr(spec, "strip_left", true, where),
                                                 json::boolOr(spec, "strip_right", true, where));
    json::fail(where, "normalizer type '" + type + "' is not supported");
}

}  // namespace

std::unique_ptr<Normalizer> parseNormalizer(const nlohmann::json& spec, const std::string& where) {
    return parse(spec, where, 0);
}

}  // namespace qkv
