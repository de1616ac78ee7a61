#pragma once
// Internal to gpu/: how a product C = alpha A B (+ bias) becomes dispatches. Tiles of 64 x 64, or
// one invocation per column when A has so few rows that a tile would mostly compute nothing;
// B may be a weight kept in F16/BF16 (the shaders widen it as they load it). A product of few
// tiles over a long K (a short input's linear layers) would leave most of a GPU idle while each
// workgroup walks K alone: K is then split into chunks whose partial products are summed in
// chunk order, so the result does not depend on scheduling.
#include <cstdint>
#include <memory>

#include "core/format/element_type.h"
#include "gpu/vulkan_recorder.h"

namespace qkv::gpu {

class GemmDispatcher {
  public:
    GemmDispatcher(CommandRecorder& recorder, std::shared_ptr<DeviceAllocator> allocator);

    // `batches` products of p's shape (strides and groups in p).
    void run(bool transposedB, const GemmParams& p, uint32_t batches, const BufferRegion& a,
             const BufferRegion& b, const BufferRegion& c, const BufferRegion* bias,
             ElementType bType = ElementType::F32);

  private:
    // Chunks of at least 128 along K, as many as bring the workgroups up to 256, each a multiple
    // of 4 floats so the chunks' loads stay vector-aligned; 1 means no split.
    static uint32_t splitsAlongK(const GemmParams& p);
    // The K chunks as batches of partial m x n products (batch z reads A's and B's chunk z),
    // then their sum with alpha and the bias.
    void splitAlongK(bool transposedB, const GemmParams& p, uint32_t splits, const BufferRegion& a,
                     const BufferRegion& b, const BufferRegion& c, const BufferRegion* bias,
                     ElementType bType);

    CommandRecorder& m_recorder;
    std::shared_ptr<DeviceAllocator> m_allocator;
    std::shared_ptr<BufferRegion> m_splitPartials;
};

}  // namespace qkv::gpu
