#pragma once
// Internal to gpu/: weights uploaded once per host memory and layout, in their element type (an
// F16/BF16 weight stays 16-bit on the device; the GEMM shaders widen it as they load it; MXFP4 is
// decoded to bfloat16, which holds each of its values exactly). A
// column-major view (a Linear [out, in] weight) is kept in that layout, since the GEMM reads both;
// such a weight larger than one shader can address is split into column ranges (whole GEMM tiles).
#include <cstddef>
#include <map>
#include <memory>
#include <tuple>

#include "gpu/vulkan_staging.h"
#include "gpu/vulkan_tensor.h"

namespace qkv::gpu {

class WeightUploader {
  public:
    WeightUploader(std::shared_ptr<DeviceAllocator> allocator, Staging& staging,
                   VkDeviceSize maxShaderRange);

    // The device copy of `w`, shared with earlier calls on the same memory and layout while
    // they are alive.
    std::unique_ptr<Tensor> upload(const MatrixView& w);

  private:
    // Packs a weight view into its stored layout: `inner` contiguous elements per outer index.
    void pack(const MatrixView& w, bool transposed, const BufferRegion& region);

    using Key = std::tuple<const void*, int, int, std::ptrdiff_t, std::ptrdiff_t>;
    std::shared_ptr<DeviceAllocator> m_allocator;
    Staging& m_staging;
    VkDeviceSize m_maxShaderRange;
    std::map<Key, std::weak_ptr<const TensorParts>> m_uploaded;
};

}  // namespace qkv::gpu
