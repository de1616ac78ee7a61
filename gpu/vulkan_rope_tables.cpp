#include "gpu/vulkan_rope_tables.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace qkv::gpu {

RopeTables::RopeTables(std::shared_ptr<DeviceAllocator> allocator, Staging& staging)
    : m_allocator(std::move(allocator)), m_staging(staging) {}

const BufferRegion& RopeTables::table(int rows, const RotaryFrequencies& frequencies) {
    auto found = std::find_if(m_tables.begin(), m_tables.end(),
                              [&](const Table& t) { return t.frequencies == frequencies; });
    if (found != m_tables.end() && found->rows >= rows) {
        std::rotate(m_tables.begin(), found, found + 1);  // most recent first
        return *m_tables.front().buffer;
    }
    if (found != m_tables.end()) m_tables.erase(found);
    const int half = static_cast<int>(frequencies.inverse.size());
    std::vector<float> values(static_cast<size_t>(rows) * half * 2);
    for (int i = 0; i < half; ++i)
        for (int pos = 0; pos < rows; ++pos) {
            const float angle = static_cast<float>(pos) * frequencies.inverse[i];
            values[(static_cast<size_t>(pos) * half + i) * 2] = std::cos(angle) * frequencies.scale;
            values[(static_cast<size_t>(pos) * half + i) * 2 + 1] =
                std::sin(angle) * frequencies.scale;
        }
    auto buffer = m_allocator->allocate(values.size() * sizeof(float), "the rotary table");
    m_staging.upload(*buffer, values.size(), sizeof(float),
                     [&](void* out, size_t first, size_t count) {
                         std::memcpy(out, values.data() + first, count * sizeof(float));
                     });
    m_tables.insert(m_tables.begin(), Table{frequencies, rows, std::move(buffer)});
    if (m_tables.size() > kKept) m_tables.pop_back();
    return *m_tables.front().buffer;
}

}  // namespace qkv::gpu
