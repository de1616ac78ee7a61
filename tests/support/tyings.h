#pragma once
// The four attention tyings of the training lab as GoogleTest parameters, each test named after
// its tying without the hyphen (shared-qk -> sharedqk).
#include <gtest/gtest.h>

#include <string>

#include "core/train/model_shape.h"

namespace qkv::test {

inline auto allTyings() { return ::testing::ValuesIn(train::AttentionTying::names()); }

inline std::string tyingTestName(const ::testing::TestParamInfo<const char*>& info) {
    std::string name = info.param;
    std::erase(name, '-');
    return name;
}

}  // namespace qkv::test
