#include "core/train/model_shape.h"

#include "core/util/error.h"

namespace qkv::train {

const std::array<const char*, 7>& AttentionTying::names() {
    static const std::array<const char*, 7> names{
        "learned",       "shared-qk",     "tied-kv",           "single-w",
        "full-bilinear", "scale-outside", "shared-qk-reformer"};
    return names;
}

AttentionTying AttentionTying::parse(const std::string& name) {
    AttentionTying t;
    t.name = name;
    if (name == "learned") return t;
    if (name == "shared-qk" || name == "shared-qk-reformer") {
        t.sources = 2;
        t.slotSource = {0, 0, 1};
        t.reformer = name == "shared-qk-reformer";
        return t;
    }
    if (name == "tied-kv") {
        t.sources = 2;
        t.slotSource = {0, 1, 1};
        return t;
    }
    if (name == "single-w") {
        t.sources = 1;
        t.slotSource = {0, 0, 0};
        return t;
    }
    if (name == "full-bilinear") {
        t.fullBilinear = true;
        return t;
    }
    if (name == "scale-outside") {
        t.scaleOutside = true;
        return t;
    }
    std::string choices;
    for (const char* n : names()) choices += std::string(choices.empty() ? "" : ", ") + n;
    throw Error("unknown attention variant '" + name + "'; choose " + choices);
}

void ModelShape::validate() const {
    auto check = [](bool ok, const std::string& message) {
        if (!ok) throw Error(message);
    };
    check(layers >= 1 && layers <= 64, "layers must be from 1 to 64");
    check(heads >= 1 && heads <= 64, "heads must be from 1 to 64");
    check(dModel >= 1 && dModel <= 4096, "d_model must be from 1 to 4096");
    check(dModel % heads == 0, "d_model (" + std::to_string(dModel) +
                                   ") must be a multiple of the number of heads (" +
                                   std::to_string(heads) + ")");
    check(context >= 2 && context <= 4096, "context must be from 2 to 4096");
    check(vocab >= 1, "the vocabulary is empty");
}

}  // namespace qkv::train
