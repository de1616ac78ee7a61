#pragma once
// Internal to gpu/: a Tensor of the Vulkan backend — float32 in device memory, row-major, or (a
// Linear [out, in] weight kept as stored) the row-major transpose; weights keep their F16/BF16.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/backend/backend.h"
#include "core/util/error.h"
#include "gpu/vulkan_memory.h"

namespace qkv::gpu {

// Columns [firstColumn, firstColumn + columns) of a tensor, in one buffer region. A weight
// larger than one shader can address (GPT-2's 147 MiB embedding used as the LM head, on a device
// with a 128 MiB limit) is stored in several parts; everything else is one part.
struct TensorPart {
    std::shared_ptr<BufferRegion> region;
    int firstColumn;
    int columns;
};
using TensorParts = std::vector<TensorPart>;

class VulkanTensor final : public Tensor {
  public:
    VulkanTensor(int rows, int cols, std::shared_ptr<BufferRegion> region, bool transposed)
        : VulkanTensor(
              rows, cols,
              std::make_shared<const TensorParts>(TensorParts{{std::move(region), 0, cols}}),
              transposed, ElementType::F32) {}
    VulkanTensor(int rows, int cols, std::shared_ptr<const TensorParts> parts, bool transposed,
                 ElementType type)
        : Tensor(rows, cols), m_parts(std::move(parts)), m_transposed(transposed), m_type(type) {}

    const BufferRegion& region() const {
        if (m_parts->size() != 1)
            throw Error("internal error: a weight stored in parts is only usable by linear");
        return *m_parts->front().region;
    }
    const TensorParts& parts() const { return *m_parts; }
    // Stored as the row-major cols x rows transpose (a Linear [out, in] weight, kept as is).
    bool transposed() const { return m_transposed; }
    // F32, or a weight kept in its checkpoint's F16/BF16 (two elements per 32-bit word).
    ElementType type() const { return m_type; }

  private:
    std::shared_ptr<const TensorParts> m_parts;
    bool m_transposed;
    ElementType m_type;
};

inline const VulkanTensor& vulkan(const Tensor& t) { return static_cast<const VulkanTensor&>(t); }

// Activations must be row-major float32; only linear() accepts a transposed or compact weight.
inline const VulkanTensor& rowMajor(const Tensor& t, const char* op) {
    const VulkanTensor& v = vulkan(t);
    if (v.transposed() || v.type() != ElementType::F32)
        throw Error(std::string("internal error: vulkan ") + op + " needs a row-major tensor");
    return v;
}

inline size_t elements(const Tensor& t) { return static_cast<size_t>(t.rows()) * t.cols(); }

}  // namespace qkv::gpu
