#pragma once
// Internal to gpu/: the compute kernels, their push constants (mirroring the GLSL blocks in
// gpu/shaders) and the pipeline records built from them on first use.
#include <array>
#include <cstdint>
#include <memory>

#include "gpu/vulkan_context.h"

namespace qkv::gpu {

enum class Kernel {
    GemmRowMajorB,
    GemmTransposedB,
    GemvRowMajorB,  // gemv.comp: the same GEMM for at most kGemvRows rows
    GemvTransposedB,
    Softmax,
    Norm,
    Eltwise,
    Rope,
    Count
};

struct GemmParams {
    uint32_t m, n, k;
    uint32_t lda, ldb, ldc;
    uint32_t aOffset, bOffset, cOffset;
    uint32_t aBatchStride, bBatchStride, cBatchStride;
    uint32_t aGroup, bGroup;
    uint32_t batchBase;
    float alpha;
    uint32_t flags;
    uint32_t biasOffset;
};
namespace gemm {
constexpr uint32_t kBias = 1, kVecA = 2, kVecB = 4, kVecC = 8, kCausal = 16;
constexpr uint32_t kTileM = 64, kTileN = 64;
constexpr uint32_t kGemvRows = 16;
}  // namespace gemm

struct SoftmaxParams {
    uint32_t n;
    uint32_t headStride;
    uint32_t causal;
    uint32_t maskSelf;
    uint32_t transform;
    float postScale;
    float softCap;
    uint32_t window;
};

struct NormParams {
    uint32_t rows;
    uint32_t cols;
    float eps;
    uint32_t rms;
    uint32_t hasBeta;
};

struct EltwiseParams {
    uint32_t count;
    uint32_t op;
};
namespace eltwise {
constexpr uint32_t kGeluTanh = 0, kGeluExact = 1, kRelu = 2, kSwiGlu = 3, kAdd = 4,
                   kGeluTanhGlu = 5;
}

struct RopeParams {
    uint32_t rows;
    uint32_t cols;
    uint32_t headDim;
    uint32_t rotaryDims;
};

// Everything needed to record a dispatch of one kernel: its storage-buffer bindings (0..n-1),
// push-constant size and workgroup size (passed to the shader as specialization constant 0).
struct PipelineRecord {
    const char* name = nullptr;
    uint32_t bindings = 0;
    uint32_t pushConstantBytes = 0;
    uint32_t workgroupSize = 0;
    Owned<VkDescriptorSetLayout> setLayout;
    Owned<VkPipelineLayout> layout;
    Owned<VkPipeline> pipeline;
};

class Pipelines {
  public:
    explicit Pipelines(std::shared_ptr<Context> context);
    // Compiles the kernel's pipeline the first time it is asked for.
    const PipelineRecord& get(Kernel kernel);

  private:
    std::shared_ptr<Context> m_context;
    std::array<PipelineRecord, static_cast<size_t>(Kernel::Count)> m_records;
};

}  // namespace qkv::gpu
