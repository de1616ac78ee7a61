#include "core/train/random.h"

#include <cmath>

namespace qkv::train {

int Random::below(int n) {
    // Rejection sampling removes the modulo bias.
    const std::uint64_t range = static_cast<std::uint64_t>(n);
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % range;
    std::uint64_t x;
    do x = m_engine();
    while (x >= limit);
    return static_cast<int>(x % range);
}

double Random::uniform() { return static_cast<double>(m_engine() >> 11) * 0x1.0p-53; }

double Random::normal() {
    if (m_hasSpare) {
        m_hasSpare = false;
        return m_spare;
    }
    const double u1 = 1.0 - uniform();  // (0, 1]: the logarithm stays finite
    const double u2 = uniform();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    constexpr double kTwoPi = 6.283185307179586;
    m_spare = radius * std::sin(kTwoPi * u2);
    m_hasSpare = true;
    return radius * std::cos(kTwoPi * u2);
}

}  // namespace qkv::train
