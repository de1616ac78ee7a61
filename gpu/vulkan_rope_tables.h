#pragma once
// Internal to gpu/: the rotary tables, cos/sin of float32(pos) * inv_freq (times the frequencies'
// scale) for positions 0..rows-1 over the rotated pairs, computed as the CPU backend does. A
// forward may rotate with two tables (Gemma-3's local and global layers) before its commands
// run, so recent tables are kept side by side; one is replaced only by a longer input of its
// frequencies, which comes in a later forward.
#include <memory>
#include <vector>

#include "core/backend/rotary_frequencies.h"
#include "gpu/vulkan_staging.h"

namespace qkv::gpu {

class RopeTables {
  public:
    RopeTables(std::shared_ptr<DeviceAllocator> allocator, Staging& staging);

    // A table of at least `rows` positions of `frequencies`, uploaded when none is kept.
    const BufferRegion& table(int rows, const RotaryFrequencies& frequencies);

  private:
    struct Table {
        RotaryFrequencies frequencies;
        int rows = 0;
        std::shared_ptr<BufferRegion> buffer;
    };
    static constexpr size_t kKept = 4;  // a forward uses at most two

    std::shared_ptr<DeviceAllocator> m_allocator;
    Staging& m_staging;
    std::vector<Table> m_tables;  // most recently used first
};

}  // namespace qkv::gpu
