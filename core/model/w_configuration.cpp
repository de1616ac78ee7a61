#include "core/model/w_configuration.h"

#include <cctype>
#include <utility>
#include <vector>

#include "core/util/error.h"

namespace qkv {
namespace {

using P = Projection;

struct Preset {
    const char* name;
    P q, k, v;
    ScoreTransform transform;
};

constexpr Preset kPresets[] = {
    {"learned", P::Query, P::Key, P::Value, ScoreTransform::None},
    {"shared-qk", P::Query, P::Query, P::Value, ScoreTransform::None},
    {"tied-kv", P::Query, P::Key, P::Key, ScoreTransform::None},
    {"single-w", P::Query, P::Query, P::Query, ScoreTransform::None},
    {"sym-scores", P::Query, P::Key, P::Value, ScoreTransform::Symmetric},
    {"skew-scores", P::Query, P::Key, P::Value, ScoreTransform::Skew},
};

// Names for the trained variants of the same names; in choices() but not in the preset menu,
// whose checkboxes would override their options.
constexpr const char* kScaleOutside = "scale-outside";
constexpr const char* kSharedQkReformer = "shared-qk-reformer";

WConfiguration sharedQkReformer() {
    WConfiguration c;
    c.keySource = P::Query;
    c.maskSelf = true;
    c.normalizeKeys = true;
    return c;
}

char projectionLetter(Projection p) {
    switch (p) {
        case P::Query:
            return 'Q';
        case P::Key:
            return 'K';
        case P::Value:
            return 'V';
    }
    return '?';
}

std::string choices() {
    std::string s;
    for (const auto& preset : kPresets) s += std::string(preset.name) + ", ";
    s += std::string(kScaleOutside) + ", " + kSharedQkReformer + ", ";
    return s + "or a custom assignment such as q=Q,k=Q,v=V";
}

}  // namespace

const std::vector<std::string>& attentionPresetNames() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const auto& preset : kPresets) out.emplace_back(preset.name);
        return out;
    }();
    return names;
}

WConfiguration WConfiguration::parse(const std::string& text) {
    if (text == kScaleOutside) {
        WConfiguration c;
        c.scaleOutside = true;
        return c;
    }
    if (text == kSharedQkReformer) return sharedQkReformer();
    for (const auto& preset : kPresets)
        if (text == preset.name) {
            WConfiguration c;
            c.querySource = preset.q;
            c.keySource = preset.k;
            c.valueSource = preset.v;
            c.transform = preset.transform;
            return c;
        }
    // Custom: "q=Q,k=K,v=V" in any order, each slot at most once, missing slots keep their own.
    WConfiguration c;
    bool seen[3] = {false, false, false};
    size_t pos = 0;
    if (text.empty()) throw Error("empty configuration; choose " + choices());
    while (pos <= text.size()) {
        const size_t comma = std::min(text.find(',', pos), text.size());
        const std::string item = text.substr(pos, comma - pos);
        if (item.size() != 3 || item[1] != '=')
            throw Error("unknown configuration '" + text + "'; choose " + choices());
        const char slot = static_cast<char>(std::tolower(static_cast<unsigned char>(item[0])));
        const char source = static_cast<char>(std::toupper(static_cast<unsigned char>(item[2])));
        P projection;
        if (source == 'Q')
            projection = P::Query;
        else if (source == 'K')
            projection = P::Key;
        else if (source == 'V')
            projection = P::Value;
        else
            throw Error("configuration '" + text + "': '" + item + "' must take Q, K or V");
        int index = slot == 'q' ? 0 : slot == 'k' ? 1 : slot == 'v' ? 2 : -1;
        if (index < 0)
            throw Error("configuration '" + text + "': slot '" + item.substr(0, 1) +
                        "' must be q, k or v");
        if (seen[index])
            throw Error("configuration '" + text + "' assigns slot " + item.substr(0, 1) +
                        " twice");
        seen[index] = true;
        (index == 0 ? c.querySource : index == 1 ? c.keySource : c.valueSource) = projection;
        pos = comma + 1;
    }
    return c;
}

// Learned slots with scaleOutside keep the name "learned": the configuration panel selects its
// menu entry by name() and saves the scaleOutside checkbox separately, so "scale-outside" (not in
// the menu) would switch the menu to "custom" when the box is ticked. shared-qk-reformer cannot be
// set from the panel, so its name changes nothing there; scaleOutside is reported separately, as
// for every preset.
std::string WConfiguration::name() const {
    const WConfiguration reformer = sharedQkReformer();
    if (querySource == reformer.querySource && keySource == reformer.keySource &&
        valueSource == reformer.valueSource && transform == reformer.transform &&
        maskSelf == reformer.maskSelf && normalizeKeys == reformer.normalizeKeys)
        return kSharedQkReformer;
    const std::string keys = normalizeKeys ? " (normalized keys)" : "";
    for (const auto& preset : kPresets)
        if (querySource == preset.q && keySource == preset.k && valueSource == preset.v &&
            transform == preset.transform)
            return preset.name + keys;
    std::string s = std::string("q=") + projectionLetter(querySource) +
                    ",k=" + projectionLetter(keySource) + ",v=" + projectionLetter(valueSource);
    if (transform == ScoreTransform::Symmetric) s += " (sym-scores)";
    if (transform == ScoreTransform::Skew) s += " (skew-scores)";
    return s + keys;
}

}  // namespace qkv
