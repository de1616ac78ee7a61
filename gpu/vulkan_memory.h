#pragma once
// Internal to gpu/: device memory for tensors and host-visible staging for transfers.
//
// Tensors are sub-ranges of large device-local blocks (one VkBuffer per block), so a forward's
// dozens of temporaries cost no vkAllocateMemory each. A freed range may be reused by work
// recorded later in the same command buffer: the backend's hazard tracking works on memory
// ranges and puts a barrier between the last use and the reuse. A block's VkBuffer lives until
// the last submission that used it has completed.
#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>

#include "gpu/vulkan_context.h"

namespace qkv::gpu {

struct MemoryBlock {
    Owned<VkDeviceMemory> memory;
    Owned<VkBuffer> buffer;  // declared after memory: destroyed first
    VkDeviceSize size = 0;
    std::map<VkDeviceSize, VkDeviceSize> freeRanges;  // offset -> size, coalesced
    size_t liveRanges = 0;
    uint64_t lastUse = 0;  // submission serial of the last recorded work that used the block
    bool dedicated = false;
};

class DeviceAllocator;

// A range of one block; returns itself to the allocator when the last owner lets go.
class BufferRegion {
  public:
    BufferRegion(std::shared_ptr<DeviceAllocator> owner, MemoryBlock* block, VkDeviceSize offset,
                 VkDeviceSize size)
        : m_owner(std::move(owner)), m_block(block), m_offset(offset), m_size(size) {}
    ~BufferRegion();
    BufferRegion(const BufferRegion&) = delete;
    BufferRegion& operator=(const BufferRegion&) = delete;

    VkBuffer buffer() const { return m_block->buffer.get(); }
    VkDeviceSize offset() const { return m_offset; }
    VkDeviceSize size() const { return m_size; }
    MemoryBlock& block() const { return *m_block; }

  private:
    std::shared_ptr<DeviceAllocator> m_owner;
    MemoryBlock* m_block;
    VkDeviceSize m_offset;
    VkDeviceSize m_size;
};

class DeviceAllocator : public std::enable_shared_from_this<DeviceAllocator> {
  public:
    explicit DeviceAllocator(std::shared_ptr<Context> context);
    ~DeviceAllocator();

    // Throws qkv::Error naming `what`, the size and the device's memory when it cannot.
    std::shared_ptr<BufferRegion> allocate(VkDeviceSize bytes, const std::string& what);
    // Work up to `serial` has completed: blocks that are empty and idle can go.
    void completed(uint64_t serial);

  private:
    friend class BufferRegion;
    void release(MemoryBlock* block, VkDeviceSize offset, VkDeviceSize size);
    MemoryBlock* createBlock(VkDeviceSize bytes, bool dedicated, const std::string& what);
    void trim();

    std::shared_ptr<Context> m_context;
    std::list<MemoryBlock> m_blocks;  // stable addresses
    uint64_t m_completed = 0;
    VkDeviceSize m_allocated = 0;
    VkDeviceSize m_alignment = 256;
};

// A host-visible buffer used as a bump arena between two submissions: uploads are written here
// and copied to device memory by the command buffer; readbacks land here and are copied to their
// host destinations after the submission's fence.
class StagingBuffer {
  public:
    static constexpr VkDeviceSize kMaxCapacity = VkDeviceSize{64} << 20;

    StagingBuffer(std::shared_ptr<Context> context, bool readback);

    // Reserves up to `bytes` (at least min(bytes, 64 KiB)); returns the number reserved at
    // `offset`, or 0 when the arena is too full and must be emptied by a submission first.
    VkDeviceSize take(VkDeviceSize bytes, VkDeviceSize& offset);
    // Empties the arena (its submission has completed), growing it towards `wanted` bytes.
    void reset(VkDeviceSize wanted);
    VkDeviceSize used() const { return m_used; }
    std::byte* data() const { return m_mapped; }
    VkBuffer buffer() const { return m_buffer.get(); }
    void flushHostWrites() const;    // before submission (non-coherent memory only)
    void invalidateForHost() const;  // after the fence (non-coherent memory only)

  private:
    void create(VkDeviceSize capacity);

    std::shared_ptr<Context> m_context;
    bool m_readback;
    Owned<VkDeviceMemory> m_memory;
    Owned<VkBuffer> m_buffer;
    std::byte* m_mapped = nullptr;
    bool m_coherent = true;
    VkDeviceSize m_capacity = 0;
    VkDeviceSize m_used = 0;
};

// A scratch buffer kept in `slot` between calls, replaced by a larger one when `floats` need more.
const BufferRegion& scratchBuffer(DeviceAllocator& allocator, std::shared_ptr<BufferRegion>& slot,
                                  size_t floats, const std::string& what);

}  // namespace qkv::gpu
