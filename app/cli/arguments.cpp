#include "app/cli/arguments.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace qkv::cli {

Arguments::Arguments(const std::vector<std::string>& tokens, const std::vector<OptionSpec>& specs) {
    for (size_t i = 0; i < tokens.size(); ++i) {
        const std::string& token = tokens[i];
        if (token.rfind("--", 0) != 0) {
            auto slot = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) {
                return s.positional && (s.repeated || !m_values.count(s.name));
            });
            if (slot == specs.end()) throw UsageError("unexpected argument '" + token + "'");
            m_values[slot->name] = token;
            if (slot->repeated) m_repeated[slot->name].push_back(token);
            continue;
        }
        std::string name = token.substr(2);
        std::optional<std::string> inlineValue;
        if (auto eq = name.find('='); eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        auto spec = std::find_if(specs.begin(), specs.end(),
                                 [&](const OptionSpec& s) { return s.name == name; });
        if (spec == specs.end() || spec->positional)
            throw UsageError("unknown option '--" + name + "'");
        if (m_values.count(name)) throw UsageError("option '--" + name + "' given twice");
        if (spec->valueName.empty()) {
            if (inlineValue) throw UsageError("option '--" + name + "' takes no value");
            m_values[name] = "";
        } else if (inlineValue) {
            m_values[name] = *inlineValue;
        } else {
            if (i + 1 >= tokens.size())
                throw UsageError("option '--" + name + "' needs a value (" + spec->valueName + ")");
            m_values[name] = tokens[++i];
        }
    }
}

std::optional<std::string> Arguments::value(const std::string& name) const {
    auto it = m_values.find(name);
    if (it == m_values.end()) return std::nullopt;
    return it->second;
}

std::vector<std::string> Arguments::values(const std::string& name) const {
    auto it = m_repeated.find(name);
    return it == m_repeated.end() ? std::vector<std::string>{} : it->second;
}

std::string Arguments::required(const std::string& name) const {
    auto v = value(name);
    if (!v) throw UsageError("missing required option '--" + name + "'");
    return *v;
}

std::string Arguments::required(const OptionSpec& positional) const {
    auto v = value(positional.name);
    if (!v) throw UsageError("missing " + positional.valueName + " (" + positional.help + ")");
    return *v;
}

std::optional<int> Arguments::integer(const std::string& name, int min, int max) const {
    auto v = value(name);
    if (!v) return std::nullopt;
    errno = 0;
    char* end = nullptr;
    const long parsed = std::strtol(v->c_str(), &end, 10);
    if (v->empty() || *end != '\0' || errno != 0 || parsed < min || parsed > max)
        throw UsageError("option '--" + name + "' must be an integer from " + std::to_string(min) +
                         " to " + std::to_string(max) + ", got '" + *v + "'");
    return static_cast<int>(parsed);
}

std::string formatOptions(const std::vector<OptionSpec>& specs) {
    std::string out;
    for (const auto& spec : specs) {
        std::string left =
            spec.positional
                ? "  " + spec.valueName
                : "  --" + spec.name + (spec.valueName.empty() ? "" : " " + spec.valueName);
        if (left.size() < 24)
            left.resize(24, ' ');
        else
            left += "  ";
        out += left + spec.help + "\n";
    }
    return out;
}

}  // namespace qkv::cli
