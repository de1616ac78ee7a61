#include "gpu/vulkan_memory.h"

#include <algorithm>
#include <cstdio>

#include "core/util/error.h"

namespace qkv::gpu {
namespace {

// Activations shrink with the input; weights do not.
const std::string kAdvice =
    "use the cpu backend (or, if the tensor is an activation, a shorter input)";

constexpr VkDeviceSize kBlockSize = VkDeviceSize{64} << 20;
// Larger requests get a block of their own, so a big weight does not pin a mostly-empty block.
constexpr VkDeviceSize kDedicatedThreshold = VkDeviceSize{16} << 20;
constexpr VkDeviceSize kMinStagingChunk = VkDeviceSize{64} << 10;

VkDeviceSize alignUp(VkDeviceSize value, VkDeviceSize alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

std::string mib(VkDeviceSize bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
    return text;
}

constexpr VkBufferUsageFlags kStorageUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_DST_BIT;

}  // namespace

BufferRegion::~BufferRegion() { m_owner->release(m_block, m_offset, m_size); }

DeviceAllocator::DeviceAllocator(std::shared_ptr<Context> context) : m_context(std::move(context)) {
    m_alignment = std::max<VkDeviceSize>(
        m_alignment, m_context->properties().limits.minStorageBufferOffsetAlignment);
}

DeviceAllocator::~DeviceAllocator() = default;

MemoryBlock* DeviceAllocator::createBlock(VkDeviceSize bytes, bool dedicated,
                                          const std::string& what) {
    const VulkanFunctions& vk = m_context->vk();
    const VkDevice device = m_context->device();
    auto outOfMemory = [&](const std::string& detail) {
        VkDeviceSize heap = 0;
        for (uint32_t i = 0; i < m_context->memory().memoryHeapCount; ++i)
            if (m_context->memory().memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
                heap = std::max(heap, m_context->memory().memoryHeaps[i].size);
        return Error("out of GPU memory: " + what + " needs " + mib(bytes) + " (" + detail +
                     "; device-local heap " + mib(heap) + ", already allocated " +
                     mib(m_allocated) + " on " + m_context->info().name + "); " + kAdvice);
    };

    MemoryBlock block;
    block.size = bytes;
    block.dedicated = dedicated;
    VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bufferInfo.size = bytes;
    bufferInfo.usage = kStorageUsage;
    bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer buffer = VK_NULL_HANDLE;
    const VkResult created = vk.vkCreateBuffer(device, &bufferInfo, nullptr, &buffer);
    if (created == VK_ERROR_OUT_OF_DEVICE_MEMORY || created == VK_ERROR_OUT_OF_HOST_MEMORY)
        throw outOfMemory(std::string("vkCreateBuffer: ") + resultName(created));
    check(created, "vkCreateBuffer");
    Owned<VkBuffer> ownedBuffer(
        buffer, [&vk, device](VkBuffer b) { vk.vkDestroyBuffer(device, b, nullptr); });

    VkMemoryRequirements requirements;
    vk.vkGetBufferMemoryRequirements(device, buffer, &requirements);
    const int type =
        m_context->memoryType(requirements.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type < 0) throw Error("no Vulkan memory type can hold a storage buffer");
    const uint32_t heapIndex = m_context->memory().memoryTypes[type].heapIndex;
    if (requirements.size > m_context->memory().memoryHeaps[heapIndex].size)
        throw outOfMemory("larger than the whole memory heap");

    VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    allocateInfo.allocationSize = requirements.size;
    allocateInfo.memoryTypeIndex = static_cast<uint32_t>(type);
    VkDeviceMemory memory = VK_NULL_HANDLE;
    const VkResult allocated = vk.vkAllocateMemory(device, &allocateInfo, nullptr, &memory);
    if (allocated != VK_SUCCESS)
        throw outOfMemory(std::string("vkAllocateMemory: ") + resultName(allocated));
    block.memory = Owned<VkDeviceMemory>(
        memory, [&vk, device](VkDeviceMemory m) { vk.vkFreeMemory(device, m, nullptr); });
    check(vk.vkBindBufferMemory(device, buffer, memory, 0), "vkBindBufferMemory");
    block.buffer = std::move(ownedBuffer);
    block.freeRanges.emplace(0, bytes);
    m_allocated += bytes;
    m_blocks.push_back(std::move(block));
    return &m_blocks.back();
}

std::shared_ptr<BufferRegion> DeviceAllocator::allocate(VkDeviceSize bytes,
                                                        const std::string& what) {
    const VkDeviceSize range = m_context->properties().limits.maxStorageBufferRange;
    if (bytes > range)
        throw Error(what + " needs " + mib(bytes) + ", more than the " + mib(range) +
                    " one shader can address on " + m_context->info().name + "; " + kAdvice);
    const VkDeviceSize size = alignUp(std::max<VkDeviceSize>(bytes, 4), m_alignment);

    // First fit among the shared blocks, else a new block.
    MemoryBlock* block = nullptr;
    VkDeviceSize offset = 0;
    if (size < kDedicatedThreshold) {
        for (MemoryBlock& b : m_blocks) {
            if (b.dedicated) continue;
            for (const auto& [start, length] : b.freeRanges)
                if (length >= size) {
                    block = &b;
                    offset = start;
                    break;
                }
            if (block) break;
        }
    }
    if (!block)
        block = createBlock(size < kDedicatedThreshold ? kBlockSize : size,
                            size >= kDedicatedThreshold, what);
    auto it = block->freeRanges.find(offset);
    const VkDeviceSize length = it->second;
    block->freeRanges.erase(it);
    if (length > size) block->freeRanges.emplace(offset + size, length - size);
    ++block->liveRanges;
    return std::make_shared<BufferRegion>(shared_from_this(), block, offset, size);
}

void DeviceAllocator::release(MemoryBlock* block, VkDeviceSize offset, VkDeviceSize size) {
    auto next = block->freeRanges.emplace(offset, size).first;
    // Coalesce with the following and the preceding free range.
    auto after = std::next(next);
    if (after != block->freeRanges.end() && next->first + next->second == after->first) {
        next->second += after->second;
        block->freeRanges.erase(after);
    }
    if (next != block->freeRanges.begin()) {
        auto before = std::prev(next);
        if (before->first + before->second == next->first) {
            before->second += next->second;
            block->freeRanges.erase(next);
        }
    }
    --block->liveRanges;
    if (block->liveRanges == 0) trim();
}

void DeviceAllocator::completed(uint64_t serial) {
    m_completed = serial;
    trim();
}

void DeviceAllocator::trim() {
    // Keep one idle shared block for the next forward's temporaries; free the rest.
    bool keptOne = false;
    for (auto it = m_blocks.begin(); it != m_blocks.end();) {
        const bool idle = it->liveRanges == 0 && it->lastUse <= m_completed;
        if (idle && !it->dedicated && !keptOne) {
            keptOne = true;
            ++it;
        } else if (idle) {
            m_allocated -= it->size;
            it = m_blocks.erase(it);
        } else {
            ++it;
        }
    }
}

StagingBuffer::StagingBuffer(std::shared_ptr<Context> context, bool readback)
    : m_context(std::move(context)), m_readback(readback) {
    create(VkDeviceSize{1} << 20);
}

void StagingBuffer::create(VkDeviceSize capacity) {
    // Built aside and swapped in, so a failure leaves the current buffer usable.
    const VulkanFunctions& vk = m_context->vk();
    const VkDevice device = m_context->device();
    VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bufferInfo.size = capacity;
    bufferInfo.usage =
        m_readback ? VK_BUFFER_USAGE_TRANSFER_DST_BIT : VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer rawBuffer = VK_NULL_HANDLE;
    check(vk.vkCreateBuffer(device, &bufferInfo, nullptr, &rawBuffer), "vkCreateBuffer (staging)");
    Owned<VkBuffer> buffer(rawBuffer,
                           [&vk, device](VkBuffer b) { vk.vkDestroyBuffer(device, b, nullptr); });
    VkMemoryRequirements requirements;
    vk.vkGetBufferMemoryRequirements(device, rawBuffer, &requirements);
    // Readback wants cached memory (the host reads it); uploads are written once, sequentially.
    VkMemoryPropertyFlags preferred = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if (m_readback) preferred |= VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    const int type = m_context->memoryType(requirements.memoryTypeBits,
                                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, preferred);
    if (type < 0) throw Error("the Vulkan device offers no host-visible memory for transfers");
    VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    allocateInfo.allocationSize = requirements.size;
    allocateInfo.memoryTypeIndex = static_cast<uint32_t>(type);
    VkDeviceMemory rawMemory = VK_NULL_HANDLE;
    const VkResult allocated = vk.vkAllocateMemory(device, &allocateInfo, nullptr, &rawMemory);
    if (allocated != VK_SUCCESS)
        throw Error("out of memory: a " + mib(capacity) + " host-visible transfer buffer (" +
                    resultName(allocated) + ")");
    Owned<VkDeviceMemory> memory(rawMemory, [&vk, device](VkDeviceMemory m) {
        vk.vkFreeMemory(device, m, nullptr);  // unmaps implicitly
    });
    check(vk.vkBindBufferMemory(device, rawBuffer, rawMemory, 0), "vkBindBufferMemory (staging)");
    void* mapped = nullptr;
    check(vk.vkMapMemory(device, rawMemory, 0, VK_WHOLE_SIZE, 0, &mapped), "vkMapMemory");

    m_buffer = std::move(buffer);  // the old buffer goes before the old memory
    m_memory = std::move(memory);
    m_mapped = static_cast<std::byte*>(mapped);
    m_coherent =
        m_context->memory().memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    m_capacity = capacity;
    m_used = 0;
}

VkDeviceSize StagingBuffer::take(VkDeviceSize bytes, VkDeviceSize& offset) {
    const VkDeviceSize available = m_capacity - m_used;
    const VkDeviceSize granted = std::min(bytes, available);
    if (granted < std::min(bytes, kMinStagingChunk)) return 0;
    offset = m_used;
    m_used = alignUp(m_used + granted, 16);
    m_used = std::min(m_used, m_capacity);
    return granted;
}

void StagingBuffer::reset(VkDeviceSize wanted) {
    m_used = 0;
    const VkDeviceSize target = std::min(alignUp(wanted, VkDeviceSize{1} << 20), kMaxCapacity);
    if (target > m_capacity) create(std::max(target, std::min(2 * m_capacity, kMaxCapacity)));
}

void StagingBuffer::flushHostWrites() const {
    if (m_coherent) return;
    VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
    range.memory = m_memory.get();
    range.size = VK_WHOLE_SIZE;
    check(m_context->vk().vkFlushMappedMemoryRanges(m_context->device(), 1, &range),
          "vkFlushMappedMemoryRanges");
}

void StagingBuffer::invalidateForHost() const {
    if (m_coherent) return;
    VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
    range.memory = m_memory.get();
    range.size = VK_WHOLE_SIZE;
    check(m_context->vk().vkInvalidateMappedMemoryRanges(m_context->device(), 1, &range),
          "vkInvalidateMappedMemoryRanges");
}

const BufferRegion& scratchBuffer(DeviceAllocator& allocator, std::shared_ptr<BufferRegion>& slot,
                                  size_t floats, const std::string& what) {
    const VkDeviceSize bytes = floats * sizeof(float);
    if (!slot || slot->size() < bytes) {
        slot.reset();  // returned before the larger one is taken
        slot = allocator.allocate(bytes, what);
    }
    return *slot;
}

}  // namespace qkv::gpu
