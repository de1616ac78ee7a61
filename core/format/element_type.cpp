#include "core/format/element_type.h"

namespace qkv {
namespace {

// One loop per half type (instantiated twice) so that bfloat16's, a shift, vectorises.
template <float (*toFloat)(std::uint16_t)>
void widenHalves(const void* source, std::size_t count, float* out) {
    const auto* in = static_cast<const unsigned char*>(source);
    for (std::size_t i = 0; i < count; ++i) {
        std::uint16_t h;
        std::memcpy(&h, in + 2 * i, sizeof h);
        out[i] = toFloat(h);
    }
}

}  // namespace

const char* elementTypeName(ElementType type) {
    static constexpr const char* kNames[] = {
        "F32",  "F16",  "BF16", "MXFP4", "Q4_0", "Q4_1",   "Q5_0",   "Q5_1",         "Q8_0",
        "Q2_K", "Q3_K", "Q4_K", "Q5_K",  "Q6_K", "IQ4_NL", "IQ4_XS", "MXFP4 blocks", "FP8"};
    return kNames[static_cast<int>(type)];
}

void widen(ElementType type, const void* source, std::size_t count, float* out) {
    if (type == ElementType::F32)
        std::memcpy(out, source, count * sizeof(float));
    else if (type == ElementType::BF16)
        widenHalves<bf16ToFloat>(source, count, out);
    else
        widenHalves<f16ToFloat>(source, count, out);
}

}  // namespace qkv
