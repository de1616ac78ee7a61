#pragma once
// Float storage that starts on a cache line (64 bytes: an AVX-512 vector), left uninitialised:
// its users overwrite it whole, and zero-filling megabytes showed up in profiles.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>

namespace qkv {

constexpr std::align_val_t kCacheLineAlignment{64};

struct AlignedFloatsDelete {
    void operator()(float* p) const { ::operator delete[](p, kCacheLineAlignment); }
};
using AlignedFloats = std::unique_ptr<float[], AlignedFloatsDelete>;

inline AlignedFloats alignedFloats(std::size_t count) {
    return AlignedFloats(static_cast<float*>(
        ::operator new[](std::max<std::size_t>(count, 1) * sizeof(float), kCacheLineAlignment)));
}

}  // namespace qkv
