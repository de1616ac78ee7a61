#include "gpu/vulkan_gemm.h"

#include <algorithm>

namespace qkv::gpu {

GemmDispatcher::GemmDispatcher(CommandRecorder& recorder,
                               std::shared_ptr<DeviceAllocator> allocator)
    : m_recorder(recorder), m_allocator(std::move(allocator)) {}

void GemmDispatcher::run(bool transposedB, const GemmParams& p, uint32_t batches,
                         const BufferRegion& a, const BufferRegion& b, const BufferRegion& c,
                         const BufferRegion* bias, ElementType bType) {
    std::initializer_list<Binding> bindings{
        {&a, false}, {&b, false}, {&c, true}, {bias ? bias : nullptr, false}};
    if (p.m <= gemm::kGemvRows) {
        const KernelChoice kernel{transposedB ? Kernel::GemvTransposedB : Kernel::GemvRowMajorB,
                                  bType};
        m_recorder.dispatch(kernel, bindings, p,
                            ceilDiv(p.n, m_recorder.pipeline(kernel).workgroupSize), 1, batches);
    } else if (const uint32_t splits = batches == 1 ? splitsAlongK(p) : 1; splits > 1) {
        splitAlongK(transposedB, p, splits, a, b, c, bias, bType);
    } else {
        const KernelChoice kernel{transposedB ? Kernel::GemmTransposedB : Kernel::GemmRowMajorB,
                                  bType};
        m_recorder.dispatch(kernel, bindings, p, ceilDiv(p.n, gemm::kTileN),
                            ceilDiv(p.m, gemm::kTileM), batches);
    }
}

uint32_t GemmDispatcher::splitsAlongK(const GemmParams& p) {
    constexpr uint32_t kBusyWorkgroups = 256, kMinSplitK = 128;
    if ((p.flags & gemm::kCausal) != 0) return 1;
    const uint32_t tiles = ceilDiv(p.n, gemm::kTileN) * ceilDiv(p.m, gemm::kTileM);
    for (uint32_t splits = std::min(kBusyWorkgroups / tiles, p.k / kMinSplitK); splits > 1;
         --splits)
        if (p.k % (splits * 4) == 0) return splits;
    return 1;
}

void GemmDispatcher::splitAlongK(bool transposedB, const GemmParams& p, uint32_t splits,
                                 const BufferRegion& a, const BufferRegion& b,
                                 const BufferRegion& c, const BufferRegion* bias,
                                 ElementType bType) {
    const uint32_t chunk = p.k / splits;
    GemmParams partial = p;
    partial.k = chunk;
    partial.aBatchStride = chunk;
    partial.bBatchStride = transposedB ? chunk : chunk * p.ldb;
    partial.aGroup = partial.bGroup = 1;
    partial.batchBase = 0;
    partial.ldc = p.n;
    partial.cOffset = 0;
    partial.cBatchStride = p.m * p.n;
    partial.alpha = 1.0f;
    partial.flags = (p.flags & ~(gemm::kBias | gemm::kVecC)) | (p.n % 4 == 0 ? gemm::kVecC : 0);
    const BufferRegion& partials = scratchBuffer(
        *m_allocator, m_splitPartials, static_cast<size_t>(splits) * p.m * p.n, "split-K partials");
    const KernelChoice kernel{transposedB ? Kernel::GemmTransposedB : Kernel::GemmRowMajorB, bType};
    m_recorder.dispatch(kernel, {{&a, false}, {&b, false}, {&partials, true}, {nullptr, false}},
                        partial, ceilDiv(p.n, gemm::kTileN), ceilDiv(p.m, gemm::kTileM), splits);
    const SplitSumParams sum{p.m,       p.n,          splits,         p.ldc,
                             p.cOffset, p.biasOffset, bias ? 1u : 0u, p.alpha};
    const uint32_t workgroup = m_recorder.pipeline(Kernel::SplitSum).workgroupSize;
    m_recorder.dispatch(Kernel::SplitSum, {{&partials, false}, {bias, false}, {&c, true}}, sum,
                        ceilDiv(p.n, workgroup), p.m, 1);
}

}  // namespace qkv::gpu
