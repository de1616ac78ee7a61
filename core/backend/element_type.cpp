#include "core/backend/element_type.h"

namespace qkv {

const char* elementTypeName(ElementType type) {
    switch (type) {
        case ElementType::F32:
            return "F32";
        case ElementType::F16:
            return "F16";
        case ElementType::BF16:
            return "BF16";
    }
    return "?";
}

void widen(ElementType type, const void* source, std::size_t count, float* out) {
    switch (type) {
        case ElementType::F32:
            std::memcpy(out, source, count * sizeof(float));
            return;
        case ElementType::BF16: {
            // bfloat16 is the top half of a float32: a shift the compiler vectorises.
            const auto* in = static_cast<const unsigned char*>(source);
            for (std::size_t i = 0; i < count; ++i) {
                std::uint16_t h;
                std::memcpy(&h, in + 2 * i, sizeof h);
                const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
                std::memcpy(out + i, &bits, sizeof bits);
            }
            return;
        }
        case ElementType::F16: {
            const auto* in = static_cast<const unsigned char*>(source);
            for (std::size_t i = 0; i < count; ++i) {
                std::uint16_t h;
                std::memcpy(&h, in + 2 * i, sizeof h);
                out[i] = f16ToFloat(h);
            }
            return;
        }
    }
}

}  // namespace qkv
