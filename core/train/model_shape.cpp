#include "core/train/model_shape.h"

#include "core/util/error.h"

namespace qkv::train {

const std::array<const char*, 4>& AttentionTying::names() {
    static const std::array<const char*, 4> names{"learned", "shared-qk", "tied-kv", "single-w"};
    return names;
}

AttentionTying AttentionTying::parse(const std::string& name) {
    if (name == "learned") return {name, 3, {0, 1, 2}};
    if (name == "shared-qk") return {name, 2, {0, 0, 1}};
    if (name == "tied-kv") return {name, 2, {0, 1, 1}};
    if (name == "single-w") return {name, 1, {0, 0, 0}};
    throw Error("unknown attention tying '" + name +
                "'; choose learned, shared-qk, tied-kv or single-w");
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
