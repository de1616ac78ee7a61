#pragma once
// Typed access to a config.json object with one-line errors naming the file and the key: what a
// model family's reader uses to fill a Architecture.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace qkv {

// config.json as Python writes it: its json module writes an infinite or undefined float as the
// bare token Infinity, -Infinity or NaN (Nemotron-H's "time_step_limit": [0.0, Infinity]), which
// JSON has not; each becomes transformers v5's spelling {"__float__": "Infinity"}, so that
// nlohmann::json parses the text. Text inside strings is left alone.
std::string withNonFiniteFloatsSpelled(const std::string& jsonText);

class ConfigReader {
  public:
    // Limits far above any released model (d_model 18432, MLP width 53248, 2^23 positions) that
    // keep every size the forward computes representable.
    static constexpr std::int64_t kMaxCount = std::int64_t{1} << 30;
    static constexpr std::int64_t kMaxWidth = std::int64_t{1} << 24;

    ConfigReader(const nlohmann::json& doc, std::string where)
        : m_doc(&doc), m_where(std::move(where)) {}

    bool has(const char* key) const;
    int positiveInt(const char* key, std::int64_t limit = kMaxCount) const;
    int positiveIntOr(const char* key, int fallback) const;
    int nonNegativeIntOr(const char* key, int fallback) const;
    // A layer width (d_model, MLP width, head size): bounded so that the products the forward
    // forms from them (3·d_model, heads·d_k) stay far inside int.
    int width(const char* key) const { return positiveInt(key, kMaxWidth); }
    int widthOr(const char* key, int fallback) const;
    float number(const char* key) const;  // a non-negative number that fits a float
    float numberOr(const char* key, float fallback) const;
    bool boolOr(const char* key, bool fallback) const;
    // A flag Python tests for truth: true or false, or a number (nonzero is true).
    bool truthOr(const char* key, bool fallback) const;
    std::string stringOr(const char* key, const std::string& fallback) const;
    // A nested object ("rope_scaling", "text_config") as a reader of its own whose errors name
    // the key; nullopt when absent or null. It refers to this reader's document.
    std::optional<ConfigReader> object(const char* key) const;
    bool isList(const char* key) const;                  // present and a list
    std::vector<double> numbers(const char* key) const;  // a list of numbers
    // A list of numbers that may hold ±infinity, spelled {"__float__": "Infinity"} (transformers
    // v5) or, before withNonFiniteFloatsSpelled, Infinity.
    std::vector<double> extendedNumbers(const char* key) const;
    std::vector<int> integers(const char* key) const;         // a list of integers
    std::vector<std::string> strings(const char* key) const;  // a list of strings
    // The key is absent or null ("rope_scaling": null); otherwise throws naming `what`.
    void requireNull(const char* key, const std::string& what) const;

    const std::string& where() const { return m_where; }
    [[noreturn]] void fail(const std::string& message) const;

  private:
    const nlohmann::json* find(const char* key) const;  // null when absent or null

    const nlohmann::json* m_doc;  // a pointer, so readers can be assigned
    std::string m_where;
};

}  // namespace qkv
