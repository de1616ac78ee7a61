#include "gpu/vulkan_staging.h"

#include <cstring>
#include <utility>

namespace qkv::gpu {

Staging::Staging(std::shared_ptr<Context> context, CommandRecorder& recorder)
    : m_context(std::move(context)),
      m_recorder(recorder),
      m_upload{StagingBuffer(m_context, false)},
      m_readback{StagingBuffer(m_context, true)} {
    m_recorder.setListener(this);
}

Staging::~Staging() { m_recorder.setListener(nullptr); }

void Staging::inChunks(Direction& direction, size_t count, size_t elementBytes,
                       const std::function<void(VkDeviceSize, size_t, size_t)>& chunk) {
    size_t done = 0;
    while (done < count) {
        VkDeviceSize offset = 0;
        const VkDeviceSize bytes = direction.arena.take((count - done) * elementBytes, offset);
        if (bytes == 0) {
            // Grow towards everything this batch wanted to stage.
            direction.demand = direction.arena.used() + (count - done) * elementBytes;
            m_recorder.flush();
            continue;
        }
        const size_t elements = bytes / elementBytes;
        chunk(offset, done, elements);
        done += elements;
    }
}

void Staging::upload(const BufferRegion& target, size_t count, size_t elementBytes,
                     const Fill& fill) {
    inChunks(m_upload, count, elementBytes, [&](VkDeviceSize offset, size_t first, size_t n) {
        fill(m_upload.arena.data() + offset, first, n);
        const VkDeviceSize bytes = n * elementBytes;
        m_recorder.copy({m_upload.arena.buffer(), offset},
                        CopyEnd::at(target, first * elementBytes), bytes);
        m_uploadedBytes += bytes;
    });
}

void Staging::download(const BufferRegion& source, VkDeviceSize sourceOffset, size_t bytes,
                       void* host) {
    inChunks(m_readback, bytes, 1, [&](VkDeviceSize offset, size_t first, size_t n) {
        m_recorder.copy(CopyEnd::at(source, sourceOffset + first),
                        {m_readback.arena.buffer(), offset}, n);
        m_hostCopies.push_back({offset, static_cast<std::byte*>(host) + first, n});
    });
}

void Staging::beforeSubmit(VkCommandBuffer commands) {
    if (!m_hostCopies.empty()) {
        // Make the transfers' writes visible to host reads after the fence.
        VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        m_context->vk().vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                             VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr,
                                             0, nullptr);
    }
    m_upload.arena.flushHostWrites();
}

// Delivers the readbacks of a completed batch, then empties both arenas (grown towards what the
// batch wanted, unless it failed).
void Staging::afterBatch(bool completed) {
    if (completed) {
        m_readback.arena.invalidateForHost();
        for (const HostCopy& c : m_hostCopies)
            std::memcpy(c.host, m_readback.arena.data() + c.stagingOffset, c.bytes);
    }
    m_hostCopies.clear();
    m_upload.arena.reset(completed ? std::exchange(m_upload.demand, 0) : 0);
    m_readback.arena.reset(completed ? std::exchange(m_readback.demand, 0) : 0);
}

}  // namespace qkv::gpu
