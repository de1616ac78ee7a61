#pragma once
// Internal to gpu/: records commands into one command buffer and submits it only when the host
// needs results (flush). Dependent commands are separated by a global memory barrier, inserted
// only where two recorded commands touch overlapping memory with at least one writing. Owns the
// command buffer, its fence, the descriptor pools and the compiled pipelines.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

#include "gpu/vulkan_memory.h"
#include "gpu/vulkan_pipelines.h"

namespace qkv::gpu {

// Workgroups of `divisor` invocations that cover `value` items.
inline uint32_t ceilDiv(size_t value, uint32_t divisor) {
    return static_cast<uint32_t>((value + divisor - 1) / divisor);
}

// One storage-buffer binding of a dispatch; a null region is an optional input that is absent
// (a placeholder is bound, which the kernel neither reads nor writes).
struct Binding {
    const BufferRegion* region;
    bool write;
};

// One end of a buffer copy: device memory of a region (ordered against other recorded work) or
// a staging arena's range (region null: each staged range is used once per submission).
struct CopyEnd {
    VkBuffer buffer;
    VkDeviceSize offset;  // from the start of the buffer
    const BufferRegion* region = nullptr;

    static CopyEnd at(const BufferRegion& r, VkDeviceSize offsetInRegion) {
        return {r.buffer(), r.offset() + offsetInRegion, &r};
    }
};

// What must happen around each submission besides the recorded work (the staging transfers).
class SubmissionListener {
  public:
    virtual ~SubmissionListener() = default;
    // Last commands of the batch and host writes to flush, before the submission.
    virtual void beforeSubmit(VkCommandBuffer commands) = 0;
    // The batch is over: `completed` when its work finished, false when the submission failed.
    virtual void afterBatch(bool completed) = 0;
};

class CommandRecorder {
  public:
    CommandRecorder(std::shared_ptr<Context> context, std::shared_ptr<DeviceAllocator> allocator);
    ~CommandRecorder();  // work recorded but never submitted is dropped
    CommandRecorder(const CommandRecorder&) = delete;
    CommandRecorder& operator=(const CommandRecorder&) = delete;

    void setListener(SubmissionListener* listener) { m_listener = listener; }
    const PipelineRecord& pipeline(KernelChoice kernel) { return m_pipelines.get(kernel); }

    // Records kernel(bindings) over x * y * z workgroups (nothing when one is 0).
    template <typename Params>
    void dispatch(KernelChoice kernel, std::initializer_list<Binding> bindings,
                  const Params& params, uint32_t x, uint32_t y, uint32_t z) {
        dispatch(kernel, bindings, &params, sizeof(Params), x, y, z);
    }
    void copy(const CopyEnd& from, const CopyEnd& to, VkDeviceSize bytes);

    // Submits what was recorded and waits for it: the only place the host waits for the device.
    void flush();

    uint64_t dispatches() const { return m_dispatches; }
    uint64_t barriers() const { return m_barriers; }
    uint64_t submissions() const { return m_submissions; }

  private:
    struct Range {
        VkBuffer buffer;
        VkDeviceSize begin;
        VkDeviceSize end;
        bool overlaps(const Range& o) const {
            return buffer == o.buffer && begin < o.end && o.begin < end;
        }
    };

    void dispatch(KernelChoice kernel, std::initializer_list<Binding> bindings, const void* params,
                  uint32_t paramBytes, uint32_t x, uint32_t y, uint32_t z);
    void begin();
    // Orders the new command after everything recorded before it, when their memory overlaps.
    void track(const std::vector<Range>& reads, const std::vector<Range>& writes);
    VkDescriptorSet allocateSet(VkDescriptorSetLayout layout);
    void submitAndWait();
    void endBatch(bool completed);

    // Declared first: everything below uses the device and is destroyed before it.
    std::shared_ptr<Context> m_context;
    std::shared_ptr<DeviceAllocator> m_allocator;
    Pipelines m_pipelines;
    Owned<VkCommandPool> m_commandPool;
    VkCommandBuffer m_commands = VK_NULL_HANDLE;  // freed with its pool
    Owned<VkFence> m_fence;
    std::vector<Owned<VkDescriptorPool>> m_descriptorPools;
    size_t m_poolIndex = 0;
    std::shared_ptr<BufferRegion> m_placeholder;  // bound for absent optional inputs
    SubmissionListener* m_listener = nullptr;

    bool m_recording = false;
    uint64_t m_serial = 1;  // of the submission being recorded
    // The memory ranges read and written since the last barrier.
    std::vector<Range> m_read;
    std::vector<Range> m_written;
    uint64_t m_dispatches = 0;
    uint64_t m_barriers = 0;
    uint64_t m_submissions = 0;
};

}  // namespace qkv::gpu
