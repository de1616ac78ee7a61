#pragma once
// The four attention tyings of the training lab as GoogleTest parameters, each test named after
// its tying without the hyphen (shared-qk -> sharedqk); a tiny shape to save under a tying.
#include <gtest/gtest.h>

#include <string>

#include "core/train/model_shape.h"

namespace qkv::test {

inline auto allTyings() { return ::testing::ValuesIn(train::AttentionTying::names()); }

// The smallest lab shape a test opens as a model: 2 layers of 2 heads, d_model 32 (d_k 16),
// context 16, a vocabulary of 50.
inline train::ModelShape tinyLabShape(const std::string& tying) {
    return {.layers = 2,
            .heads = 2,
            .dModel = 32,
            .context = 16,
            .vocab = 50,
            .tying = train::AttentionTying::parse(tying)};
}

inline std::string tyingTestName(const ::testing::TestParamInfo<const char*>& info) {
    std::string name = info.param;
    std::erase(name, '-');
    return name;
}

}  // namespace qkv::test
