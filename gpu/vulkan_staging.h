#pragma once
// Internal to gpu/: transfers between host floats and device regions through two host-visible
// arenas (one per direction). Uploads are copied into device memory by the recorded command
// buffer; downloads land in the readback arena and reach their host destinations when the batch
// completes. A transfer larger than an arena's free space is split into chunks, submitting the
// batch whenever an arena is full; each arena then grows towards what the batch wanted, so the
// next such batch needs one submission.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "gpu/vulkan_recorder.h"

namespace qkv::gpu {

class Staging final : public SubmissionListener {
  public:
    Staging(std::shared_ptr<Context> context, CommandRecorder& recorder);
    ~Staging() override;

    // Writes elements [first, first + count) of a transfer to `out`.
    using Fill = std::function<void(void* out, size_t first, size_t count)>;
    // Host -> `count` elements of `elementBytes` each at the start of `target`.
    void upload(const BufferRegion& target, size_t count, size_t elementBytes, const Fill& fill);
    // `bytes` at `sourceOffset` bytes into `source` -> `host`, at the next flush.
    void download(const BufferRegion& source, VkDeviceSize sourceOffset, size_t bytes, void* host);

    uint64_t uploadedBytes() const { return m_uploadedBytes; }

  private:
    struct Direction {
        StagingBuffer arena;
        VkDeviceSize demand = 0;  // what the last full batch wanted to stage
    };
    struct HostCopy {
        VkDeviceSize stagingOffset;
        void* host;
        size_t bytes;
    };

    // The one chunking loop of both directions: reserves arena space for the elements left
    // (flushing when the arena is full) and hands each chunk to `chunk(stagingOffset, first,
    // count)`. Arena ranges are multiples of 16 bytes, so chunks hold whole elements.
    void inChunks(Direction& direction, size_t count, size_t elementBytes,
                  const std::function<void(VkDeviceSize, size_t, size_t)>& chunk);
    void beforeSubmit(VkCommandBuffer commands) override;
    void afterBatch(bool completed) override;

    std::shared_ptr<Context> m_context;
    CommandRecorder& m_recorder;
    Direction m_upload;
    Direction m_readback;
    std::vector<HostCopy> m_hostCopies;
    uint64_t m_uploadedBytes = 0;
};

}  // namespace qkv::gpu
