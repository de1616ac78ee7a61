#pragma once
// Internal to gpu/: the compute kernels, their push constants (declared once for C++ and GLSL in
// gpu/shaders/push_constants.h) and the pipeline records built from them on first use.
#include <array>
#include <cstdint>
#include <memory>

#include "core/format/element_type.h"
#include "gpu/shaders/push_constants.h"
#include "gpu/vulkan_context.h"

namespace qkv::gpu {

enum class Kernel {
    GemmRowMajorB,
    GemmTransposedB,
    GemvRowMajorB,  // gemv.comp: the same GEMM for at most kGemvRows rows
    GemvTransposedB,
    SplitSum,  // split_sum.comp: sums a split-K GEMM's partial products
    Softmax,
    Norm,
    Eltwise,
    Rope,
    Rows,             // rows.comp: a mixture of experts' gather and weighted add
    Columns,          // columns.comp: latent attention's column gather
    Conv,             // conv.comp: the short causal convolution
    DeltaRule,        // delta_rule.comp: Gated DeltaNet's implicit attention
    StateSpaceDecay,  // state_space_*.comp: Mamba-2's step sizes, implicit attention and skip
    StateSpaceMap,
    StateSpaceSkip,
    Count
};

// The push-constant blocks, from the field lists the shaders expand too.
using uint = std::uint32_t;
struct GemmParams {
    QKV_GEMM_PARAMS
};
namespace gemm {
constexpr uint32_t kBias = QKV_GEMM_BIAS, kVecA = QKV_GEMM_VEC_A, kVecB = QKV_GEMM_VEC_B,
                   kVecC = QKV_GEMM_VEC_C, kCausal = QKV_GEMM_CAUSAL;
constexpr uint32_t kTileM = 64, kTileN = 64;
constexpr uint32_t kGemvRows = 16;
}  // namespace gemm

struct SplitSumParams {
    QKV_SPLIT_SUM_PARAMS
};

struct SoftmaxParams {
    QKV_SOFTMAX_PARAMS
};
namespace transform {
constexpr uint32_t kNone = QKV_TRANSFORM_NONE, kSymmetric = QKV_TRANSFORM_SYMMETRIC,
                   kSkew = QKV_TRANSFORM_SKEW;
}

struct NormParams {
    QKV_NORM_PARAMS
};
namespace norm {
constexpr uint32_t kLayer = QKV_NORM_LAYER, kRms = QKV_NORM_RMS, kUnit = QKV_NORM_UNIT,
                   kGaussianTopK = QKV_NORM_GAUSSIAN_TOPK;
}

struct EltwiseParams {
    QKV_ELTWISE_PARAMS
};
namespace eltwise {
constexpr uint32_t kGeluTanh = QKV_ELTWISE_GELU_TANH, kGeluExact = QKV_ELTWISE_GELU_EXACT,
                   kRelu = QKV_ELTWISE_RELU, kReluSquared = QKV_ELTWISE_RELU_SQUARED,
                   kSwiGlu = QKV_ELTWISE_SWIGLU, kAdd = QKV_ELTWISE_ADD,
                   kGeluTanhGlu = QKV_ELTWISE_GELU_TANH_GLU, kSilu = QKV_ELTWISE_SILU,
                   kGeluGlu = QKV_ELTWISE_GELU_GLU, kClampedSwiGlu = QKV_ELTWISE_CLAMPED_SWIGLU,
                   kClampedSwiGluApart = QKV_ELTWISE_CLAMPED_SWIGLU_APART,
                   kSigmoidGlu = QKV_ELTWISE_SIGMOID_GLU, kProductGlu = QKV_ELTWISE_PRODUCT_GLU,
                   kXIelu = QKV_ELTWISE_XIELU;
}

struct RopeParams {
    QKV_ROPE_PARAMS
};

struct RowsParams {
    QKV_ROWS_PARAMS
};

struct ColumnsParams {
    QKV_COLUMNS_PARAMS
};
struct ConvParams {
    QKV_CONV_PARAMS
};

struct DeltaRuleParams {
    QKV_DELTA_RULE_PARAMS
};

struct StateSpaceParams {
    QKV_STATE_SPACE_PARAMS
};

namespace rows {
constexpr uint32_t kGather = QKV_ROWS_GATHER, kAddWeighted = QKV_ROWS_ADD_WEIGHTED;
}

// std430 lays 32-bit scalars out back to back; so must C++ (no padding, nothing wider).
static_assert(sizeof(GemmParams) == 18 * 4 && sizeof(SplitSumParams) == 8 * 4 &&
              sizeof(SoftmaxParams) == 14 * 4 && sizeof(NormParams) == 6 * 4 &&
              sizeof(EltwiseParams) == 6 * 4 && sizeof(RopeParams) == 6 * 4 &&
              sizeof(RowsParams) == 3 * 4 && sizeof(ColumnsParams) == 4 * 4 &&
              sizeof(ConvParams) == 4 * 4 && sizeof(DeltaRuleParams) == 7 * 4 &&
              sizeof(StateSpaceParams) == 9 * 4);
static_assert(sizeof(float) == 4);

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

// A kernel and the element type its weight operand (B of the GEMMs) is stored in; the GEMM
// shaders widen F16/BF16 weights as they load them. Other kernels take float32 only.
struct KernelChoice {
    KernelChoice(Kernel k, ElementType w = ElementType::F32) : kernel(k), weights(w) {}
    Kernel kernel;
    ElementType weights;
};

class Pipelines {
  public:
    explicit Pipelines(std::shared_ptr<Context> context);
    // Compiles the kernel's pipeline the first time it is asked for.
    const PipelineRecord& get(KernelChoice choice);

  private:
    std::shared_ptr<Context> m_context;
    std::array<std::array<PipelineRecord, 3>, static_cast<size_t>(Kernel::Count)> m_records;
};

}  // namespace qkv::gpu
