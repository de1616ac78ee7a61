#pragma once
// A seeded random source whose sequence is the same on every platform: std::mt19937_64 is
// specified bit for bit by the standard, but the standard distributions are not, so the few
// distributions training needs are written here.
#include <cstdint>
#include <random>
#include <vector>

namespace qkv::train {

class Random {
  public:
    explicit Random(std::uint64_t seed) : m_engine(seed) {}

    std::uint64_t bits() { return m_engine(); }
    int below(int n);  // uniform in [0, n), n > 0
    double uniform();  // uniform in [0, 1)
    double normal();   // standard normal (Box-Muller)
    bool chance(double p) { return uniform() < p; }

    template <typename T>
    const T& pick(const std::vector<T>& items) {
        return items[below(static_cast<int>(items.size()))];
    }

  private:
    std::mt19937_64 m_engine;
    bool m_hasSpare = false;
    double m_spare = 0.0;
};

}  // namespace qkv::train
