#pragma once
// Random host values for backend tests: `count` floats uniform in [-scale, scale), the same for
// the same seed on every run.
#include <cstddef>
#include <random>
#include <vector>

namespace qkv::test {

inline std::vector<float> randomValues(std::size_t count, unsigned seed, float scale = 1.0f) {
    std::mt19937 engine(seed);
    std::uniform_real_distribution<float> uniform(-scale, scale);
    std::vector<float> values(count);
    for (float& v : values) v = uniform(engine);
    return values;
}

}  // namespace qkv::test
