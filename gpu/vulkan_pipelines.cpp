#include "gpu/vulkan_pipelines.h"

#include <span>
#include <string>
#include <vector>

#include "core/util/error.h"
#include "gpu/shaders/columns.h"
#include "gpu/shaders/conv.h"
#include "gpu/shaders/delta_rule.h"
#include "gpu/shaders/eltwise.h"
#include "gpu/shaders/gemm.h"
#include "gpu/shaders/gemv.h"
#include "gpu/shaders/norm.h"
#include "gpu/shaders/rope.h"
#include "gpu/shaders/rows.h"
#include "gpu/shaders/softmax.h"
#include "gpu/shaders/split_sum.h"
#include "gpu/shaders/state_space_decay.h"
#include "gpu/shaders/state_space_map.h"
#include "gpu/shaders/state_space_skip.h"

namespace qkv::gpu {
namespace {

struct KernelSpec {
    const char* name;
    std::span<const uint32_t> spirv;
    uint32_t bindings;
    uint32_t pushConstantBytes;
    uint32_t workgroupSize;
    std::vector<uint32_t> constants;  // specialization constants 1, 2, ...
};

KernelSpec spec(Kernel kernel) {
    switch (kernel) {
        case Kernel::GemmRowMajorB:
            return {"gemm", spirv::gemm, 4, sizeof(GemmParams), 256, {0, QKV_B_F32}};
        case Kernel::GemmTransposedB:
            return {"gemm (transposed B)", spirv::gemm, 4, sizeof(GemmParams), 256, {1, QKV_B_F32}};
        case Kernel::GemvRowMajorB:
            return {"gemv", spirv::gemv, 4, sizeof(GemmParams), 64, {0, QKV_B_F32}};
        case Kernel::GemvTransposedB:
            return {"gemv (transposed B)", spirv::gemv, 4, sizeof(GemmParams), 64, {1, QKV_B_F32}};
        case Kernel::SplitSum:
            return {"split sum", spirv::split_sum, 3, sizeof(SplitSumParams), 256, {}};
        case Kernel::Softmax:
            return {"softmax", spirv::softmax, 5, sizeof(SoftmaxParams), 128, {}};
        case Kernel::Norm:
            return {"norm", spirv::norm, 4, sizeof(NormParams), 128, {}};
        case Kernel::Eltwise:
            return {"eltwise", spirv::eltwise, 2, sizeof(EltwiseParams), 256, {}};
        case Kernel::Rope:
            return {"rope", spirv::rope, 3, sizeof(RopeParams), 256, {}};
        case Kernel::Rows:
            return {"rows", spirv::rows, 4, sizeof(RowsParams), 256, {}};
        case Kernel::Columns:
            return {"columns", spirv::columns, 4, sizeof(ColumnsParams), 256, {}};
        case Kernel::Conv:
            return {"conv", spirv::conv, 4, sizeof(ConvParams), 256, {}};
        case Kernel::DeltaRule:
            return {"delta rule", spirv::delta_rule, 7, sizeof(DeltaRuleParams), 64, {}};
        case Kernel::StateSpaceDecay:
            return {
                "state-space decay", spirv::state_space_decay, 4, sizeof(StateSpaceParams), 64, {}};
        case Kernel::StateSpaceMap:
            return {"state-space map", spirv::state_space_map, 4, sizeof(StateSpaceParams), 64, {}};
        case Kernel::StateSpaceSkip:
            return {
                "state-space skip", spirv::state_space_skip, 3, sizeof(StateSpaceParams), 256, {}};
        case Kernel::Count:
            break;
    }
    return {};
}

}  // namespace

Pipelines::Pipelines(std::shared_ptr<Context> context) : m_context(std::move(context)) {}

const PipelineRecord& Pipelines::get(KernelChoice choice) {
    PipelineRecord& record =
        m_records[static_cast<size_t>(choice.kernel)][static_cast<size_t>(choice.weights)];
    if (record.pipeline) return record;

    KernelSpec s = spec(choice.kernel);
    if (choice.weights != ElementType::F32) {
        if (s.spirv.data() != spirv::gemm && s.spirv.data() != spirv::gemv)
            throw Error(std::string("internal error: kernel ") + s.name +
                        " takes float32 operands only");
        // The last constant of gemm.comp and gemv.comp (id 2) is B_TYPE.
        s.constants.back() = choice.weights == ElementType::F16 ? QKV_B_F16 : QKV_B_BF16;
    }
    const VulkanFunctions& vk = m_context->vk();
    const VkDevice device = m_context->device();
    PipelineRecord built;
    built.name = s.name;
    built.bindings = s.bindings;
    built.pushConstantBytes = s.pushConstantBytes;
    built.workgroupSize = s.workgroupSize;

    std::vector<VkDescriptorSetLayoutBinding> bindings(s.bindings);
    for (uint32_t i = 0; i < s.bindings; ++i) {
        bindings[i].binding = i;
        bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        bindings[i].descriptorCount = 1;
        bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    setInfo.bindingCount = s.bindings;
    setInfo.pBindings = bindings.data();
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
    check(vk.vkCreateDescriptorSetLayout(device, &setInfo, nullptr, &setLayout),
          "vkCreateDescriptorSetLayout");
    built.setLayout = Owned<VkDescriptorSetLayout>(
        setLayout, [&vk, device](auto h) { vk.vkDestroyDescriptorSetLayout(device, h, nullptr); });

    VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, s.pushConstantBytes};
    VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = &setLayout;
    layoutInfo.pushConstantRangeCount = 1;
    layoutInfo.pPushConstantRanges = &push;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    check(vk.vkCreatePipelineLayout(device, &layoutInfo, nullptr, &layout),
          "vkCreatePipelineLayout");
    built.layout = Owned<VkPipelineLayout>(
        layout, [&vk, device](auto h) { vk.vkDestroyPipelineLayout(device, h, nullptr); });

    VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    moduleInfo.codeSize = s.spirv.size_bytes();
    moduleInfo.pCode = s.spirv.data();
    VkShaderModule module = VK_NULL_HANDLE;
    check(vk.vkCreateShaderModule(device, &moduleInfo, nullptr, &module), "vkCreateShaderModule");
    Owned<VkShaderModule> ownedModule(
        module, [&vk, device](auto h) { vk.vkDestroyShaderModule(device, h, nullptr); });

    // Constant 0 is the workgroup size; the kernel's own constants follow with ids 1, 2, ...
    std::vector<uint32_t> constants{s.workgroupSize};
    constants.insert(constants.end(), s.constants.begin(), s.constants.end());
    std::vector<VkSpecializationMapEntry> entries(constants.size());
    for (uint32_t i = 0; i < constants.size(); ++i)
        entries[i] = {i, static_cast<uint32_t>(i * sizeof(uint32_t)), sizeof(uint32_t)};
    VkSpecializationInfo specialization{static_cast<uint32_t>(entries.size()), entries.data(),
                                        constants.size() * sizeof(uint32_t), constants.data()};
    VkComputePipelineCreateInfo pipelineInfo{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    pipelineInfo.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipelineInfo.stage.module = module;
    pipelineInfo.stage.pName = "main";
    pipelineInfo.stage.pSpecializationInfo = &specialization;
    pipelineInfo.layout = layout;
    VkPipeline pipeline = VK_NULL_HANDLE;
    check(vk.vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pipelineInfo, nullptr, &pipeline),
          "vkCreateComputePipelines");
    built.pipeline = Owned<VkPipeline>(
        pipeline, [&vk, device](auto h) { vk.vkDestroyPipeline(device, h, nullptr); });
    record = std::move(built);
    return record;
}

}  // namespace qkv::gpu
