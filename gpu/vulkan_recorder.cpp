#include "gpu/vulkan_recorder.h"

#include <string>

#include "core/util/error.h"

namespace qkv::gpu {

CommandRecorder::CommandRecorder(std::shared_ptr<Context> context,
                                 std::shared_ptr<DeviceAllocator> allocator)
    : m_context(std::move(context)), m_allocator(std::move(allocator)), m_pipelines(m_context) {
    const VulkanFunctions& vk = m_context->vk();
    const VkDevice device = m_context->device();
    VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    poolInfo.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    poolInfo.queueFamilyIndex = m_context->queueFamily();
    VkCommandPool pool = VK_NULL_HANDLE;
    check(vk.vkCreateCommandPool(device, &poolInfo, nullptr, &pool), "vkCreateCommandPool");
    m_commandPool = Owned<VkCommandPool>(
        pool, [&vk, device](auto h) { vk.vkDestroyCommandPool(device, h, nullptr); });
    VkCommandBufferAllocateInfo bufferInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    bufferInfo.commandPool = pool;
    bufferInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    bufferInfo.commandBufferCount = 1;
    check(vk.vkAllocateCommandBuffers(device, &bufferInfo, &m_commands),
          "vkAllocateCommandBuffers");
    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence = VK_NULL_HANDLE;
    check(vk.vkCreateFence(device, &fenceInfo, nullptr, &fence), "vkCreateFence");
    m_fence =
        Owned<VkFence>(fence, [&vk, device](auto h) { vk.vkDestroyFence(device, h, nullptr); });
    m_placeholder = m_allocator->allocate(16, "a placeholder binding");
}

CommandRecorder::~CommandRecorder() {
    // Work recorded but never submitted is dropped (its host destinations may be gone).
    m_allocator->completed(m_serial);
}

void CommandRecorder::begin() {
    if (m_recording) return;
    VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(m_context->vk().vkBeginCommandBuffer(m_commands, &info), "vkBeginCommandBuffer");
    m_recording = true;
}

void CommandRecorder::track(const std::vector<Range>& reads, const std::vector<Range>& writes) {
    auto any = [](const std::vector<Range>& a, const std::vector<Range>& b) {
        for (const Range& x : a)
            for (const Range& y : b)
                if (x.overlaps(y)) return true;
        return false;
    };
    begin();
    if (any(reads, m_written) || any(writes, m_written) || any(writes, m_read)) {
        VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        const VkPipelineStageFlags stages =
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
        m_context->vk().vkCmdPipelineBarrier(m_commands, stages, stages, 0, 1, &barrier, 0, nullptr,
                                             0, nullptr);
        m_read.clear();
        m_written.clear();
        ++m_barriers;
    }
    m_read.insert(m_read.end(), reads.begin(), reads.end());
    m_written.insert(m_written.end(), writes.begin(), writes.end());
}

void CommandRecorder::dispatch(KernelChoice kernel, std::initializer_list<Binding> bindings,
                               const void* params, uint32_t paramBytes, uint32_t x, uint32_t y,
                               uint32_t z) {
    const PipelineRecord& pipeline = m_pipelines.get(kernel);
    if (paramBytes != pipeline.pushConstantBytes || bindings.size() != pipeline.bindings ||
        bindings.size() > 8)
        throw Error(std::string("internal error: wrong arguments for kernel ") + pipeline.name);
    if (x == 0 || y == 0 || z == 0) return;

    std::vector<Range> reads, writes;
    for (const Binding& b : bindings)
        if (b.region)
            (b.write ? writes : reads)
                .push_back({b.region->buffer(), b.region->offset(),
                            b.region->offset() + b.region->size()});
    track(reads, writes);

    VkDescriptorSet set = allocateSet(pipeline.setLayout.get());
    VkDescriptorBufferInfo infos[8];
    VkWriteDescriptorSet descriptorWrites[8];
    uint32_t i = 0;
    for (const Binding& b : bindings) {
        const BufferRegion& region = b.region ? *b.region : *m_placeholder;
        region.block().lastUse = m_serial;
        infos[i] = {region.buffer(), region.offset(), region.size()};
        descriptorWrites[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        descriptorWrites[i].dstSet = set;
        descriptorWrites[i].dstBinding = i;
        descriptorWrites[i].descriptorCount = 1;
        descriptorWrites[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        descriptorWrites[i].pBufferInfo = &infos[i];
        ++i;
    }
    const VulkanFunctions& vk = m_context->vk();
    vk.vkUpdateDescriptorSets(m_context->device(), i, descriptorWrites, 0, nullptr);
    vk.vkCmdBindPipeline(m_commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline.get());
    vk.vkCmdBindDescriptorSets(m_commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout.get(), 0,
                               1, &set, 0, nullptr);
    vk.vkCmdPushConstants(m_commands, pipeline.layout.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                          paramBytes, params);
    vk.vkCmdDispatch(m_commands, x, y, z);
    ++m_dispatches;
}

void CommandRecorder::copy(const CopyEnd& from, const CopyEnd& to, VkDeviceSize bytes) {
    std::vector<Range> reads, writes;
    if (from.region) reads.push_back({from.buffer, from.offset, from.offset + bytes});
    if (to.region) writes.push_back({to.buffer, to.offset, to.offset + bytes});
    track(reads, writes);
    for (const BufferRegion* r : {from.region, to.region})
        if (r) r->block().lastUse = m_serial;
    VkBufferCopy region{from.offset, to.offset, bytes};
    m_context->vk().vkCmdCopyBuffer(m_commands, from.buffer, to.buffer, 1, &region);
}

VkDescriptorSet CommandRecorder::allocateSet(VkDescriptorSetLayout layout) {
    const VulkanFunctions& vk = m_context->vk();
    const VkDevice device = m_context->device();
    while (true) {
        if (m_poolIndex == m_descriptorPools.size()) {
            constexpr uint32_t kSets = 512;
            VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSets * 4};
            VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
            info.maxSets = kSets;
            info.poolSizeCount = 1;
            info.pPoolSizes = &size;
            VkDescriptorPool pool = VK_NULL_HANDLE;
            check(vk.vkCreateDescriptorPool(device, &info, nullptr, &pool),
                  "vkCreateDescriptorPool");
            m_descriptorPools.emplace_back(
                pool, [&vk, device](auto h) { vk.vkDestroyDescriptorPool(device, h, nullptr); });
        }
        VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        info.descriptorPool = m_descriptorPools[m_poolIndex].get();
        info.descriptorSetCount = 1;
        info.pSetLayouts = &layout;
        VkDescriptorSet set = VK_NULL_HANDLE;
        const VkResult result = vk.vkAllocateDescriptorSets(device, &info, &set);
        if (result == VK_SUCCESS) return set;
        if (result != VK_ERROR_OUT_OF_POOL_MEMORY && result != VK_ERROR_FRAGMENTED_POOL)
            check(result, "vkAllocateDescriptorSets");
        ++m_poolIndex;
    }
}

void CommandRecorder::flush() {
    if (!m_recording) return;
    m_recording = false;
    try {
        submitAndWait();
    } catch (...) {
        endBatch(false);
        throw;
    }
    endBatch(true);
}

void CommandRecorder::submitAndWait() {
    const VulkanFunctions& vk = m_context->vk();
    const VkDevice device = m_context->device();
    if (m_listener) m_listener->beforeSubmit(m_commands);
    check(vk.vkEndCommandBuffer(m_commands), "vkEndCommandBuffer");
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &m_commands;
    const VkFence fence = m_fence.get();
    check(vk.vkQueueSubmit(m_context->queue(), 1, &submit, fence), "vkQueueSubmit");
    ++m_submissions;
    const VkResult waited = vk.vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX);
    vk.vkResetFences(device, 1, &fence);
    check(waited, "vkWaitForFences");
}

// Starts the next batch: a fresh command buffer and descriptor pools.
void CommandRecorder::endBatch(bool completed) {
    const VulkanFunctions& vk = m_context->vk();
    const VkDevice device = m_context->device();
    vk.vkResetCommandPool(device, m_commandPool.get(), 0);
    for (auto& pool : m_descriptorPools) vk.vkResetDescriptorPool(device, pool.get(), 0);
    m_poolIndex = 0;
    m_read.clear();
    m_written.clear();
    m_allocator->completed(m_serial);
    ++m_serial;
    if (m_listener) m_listener->afterBatch(completed);
}

}  // namespace qkv::gpu
