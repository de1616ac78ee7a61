#include "gpu/vulkan_weights.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/util/half.h"

namespace qkv::gpu {
namespace {

// MXFP4 weights are decoded to bfloat16 as they are uploaded: every MXFP4 value is exact in it,
// and the GEMM shaders already widen bfloat16. GGUF's block types and FP8 to float32: their values
// (a float16 or float32 scale times a code) need more bits than bfloat16 or float16 keep.
ElementType storedType(ElementType type) {
    if (isGgmlBlockType(type) || type == ElementType::Fp8Blocks) return ElementType::F32;
    return type == ElementType::Mxfp4 ? ElementType::BF16 : type;
}

// Values that are exact in bfloat16 (floatToBf16's rounding leaves them as they are).
void storeBf16(const float* values, size_t count, unsigned char* out) {
    for (size_t j = 0; j < count; ++j) {
        const std::uint16_t half = floatToBf16(values[j]);
        std::memcpy(out + 2 * j, &half, sizeof half);
    }
}

}  // namespace

WeightUploader::WeightUploader(std::shared_ptr<DeviceAllocator> allocator, Staging& staging,
                               VkDeviceSize maxShaderRange)
    : m_allocator(std::move(allocator)), m_staging(staging), m_maxShaderRange(maxShaderRange) {}

std::unique_ptr<Tensor> WeightUploader::upload(const MatrixView& w) {
    if (w.empty() || w.rows <= 0 || w.cols <= 0) throw Error("internal error: empty weight view");
    const bool transposed = w.rowStride == 1 && w.colStride != 1;
    const ElementType type = storedType(w.type);
    const Key key{w.data, w.rows, w.cols, w.rowStride, w.colStride};
    if (auto it = m_uploaded.find(key); it != m_uploaded.end())
        if (auto parts = it->second.lock())
            return std::make_unique<VulkanTensor>(w.rows, w.cols, parts, transposed, type);

    const std::string what =
        "a " + std::to_string(w.rows) + " x " + std::to_string(w.cols) + " weight";
    // A transposed weight keeps each column's floats together, so it splits into column ranges
    // (whole 64-column GEMM tiles) that each fit one shader's addressable range.
    const VkDeviceSize columnBytes = VkDeviceSize{elementBytes(type)} * w.rows;
    int partColumns = w.cols;
    if (transposed && columnBytes * w.cols > m_maxShaderRange)
        partColumns =
            static_cast<int>(m_maxShaderRange / columnBytes / gemm::kTileN * gemm::kTileN);
    if (partColumns <= 0) partColumns = w.cols;  // not splittable: allocate() explains
    auto parts = std::make_shared<TensorParts>();
    for (int first = 0; first < w.cols; first += partColumns) {
        const int columns = std::min(partColumns, w.cols - first);
        // Whole 32-bit words: the shaders read 16-bit elements two at a time.
        const VkDeviceSize bytes = (elementBytes(type) * w.rows * columns + 3) / 4 * 4;
        parts->push_back({m_allocator->allocate(bytes, what), first, columns});
        pack(w.columns(first, columns), transposed, *parts->back().region);
    }
    std::erase_if(m_uploaded, [](const auto& entry) { return entry.second.expired(); });
    m_uploaded.emplace(key, parts);
    return std::make_unique<VulkanTensor>(w.rows, w.cols, std::move(parts), transposed, type);
}

void WeightUploader::pack(const MatrixView& w, bool transposed, const BufferRegion& region) {
    const size_t inner = transposed ? w.rows : w.cols;
    const std::ptrdiff_t innerStride = transposed ? w.rowStride : w.colStride;
    const std::ptrdiff_t outerStride = transposed ? w.colStride : w.rowStride;
    const bool decoded = !isByteAddressable(w.type);
    const size_t size = elementBytes(storedType(w.type));
    m_staging.upload(region, static_cast<size_t>(w.rows) * w.cols, size,
                     [=](void* destination, size_t first, size_t count) {
                         auto* out = static_cast<unsigned char*>(destination);
                         std::vector<float> run;
                         while (count > 0) {
                             const size_t outer = first / inner;
                             const size_t i = first % inner;
                             const size_t length = std::min(count, inner - i);
                             const std::ptrdiff_t start = outer * outerStride + i * innerStride;
                             if (decoded) {
                                 run.resize(length);
                                 if (innerStride == 1)
                                     w.widenRun(start, length, run.data());
                                 else
                                     for (size_t j = 0; j < length; ++j)
                                         w.widenRun(start + j * innerStride, 1, &run[j]);
                                 if (storedType(w.type) == ElementType::F32)
                                     std::memcpy(out, run.data(), length * sizeof(float));
                                 else
                                     storeBf16(run.data(), length, out);
                             } else if (innerStride == 1) {
                                 std::memcpy(out, w.element(start), length * size);
                             } else {
                                 for (size_t j = 0; j < length; ++j)
                                     std::memcpy(out + j * size, w.element(start + j * innerStride),
                                                 size);
                             }
                             out += length * size;
                             first += length;
                             count -= length;
                         }
                     });
}

}  // namespace qkv::gpu
