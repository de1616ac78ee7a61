// The Vulkan backend: every op is recorded into one command buffer, which is submitted (and
// waited for) only when the host needs results: download(), synchronize(), or a full staging
// buffer. Dependent dispatches are separated by a global memory barrier, inserted only where
// two recorded commands touch overlapping memory with at least one writing.
//
// Attention per layer is three dispatches over all heads at once: a batched GEMM for the scaled
// scores, a masked softmax (with the score transform folded in) and a batched GEMM for A V, plus
// one buffer copy per captured matrix into host-visible staging.
#include "gpu/vulkan_backend.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <tuple>
#include <vector>

#include "core/util/error.h"
#include "gpu/vulkan_memory.h"
#include "gpu/vulkan_pipelines.h"

namespace qkv {
namespace gpu {
namespace {

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
              transposed) {}
    VulkanTensor(int rows, int cols, std::shared_ptr<const TensorParts> parts, bool transposed)
        : Tensor(rows, cols), m_parts(std::move(parts)), m_transposed(transposed) {}

    const BufferRegion& region() const {
        if (m_parts->size() != 1)
            throw Error("internal error: a weight stored in parts is only usable by linear");
        return *m_parts->front().region;
    }
    const TensorParts& parts() const { return *m_parts; }
    // Stored as the row-major cols x rows transpose (a Linear [out, in] weight, kept as is).
    bool transposed() const { return m_transposed; }

  private:
    std::shared_ptr<const TensorParts> m_parts;
    bool m_transposed;
};

const VulkanTensor& vulkan(const Tensor& t) { return static_cast<const VulkanTensor&>(t); }

void requireShape(bool ok, const char* op) {
    if (!ok) throw Error(std::string("internal error: shape mismatch in vulkan ") + op);
}

// Activations must be row-major; only linear() accepts a transposed weight.
const VulkanTensor& rowMajor(const Tensor& t, const char* op) {
    const VulkanTensor& v = vulkan(t);
    if (v.transposed())
        throw Error(std::string("internal error: vulkan ") + op + " needs a row-major tensor");
    return v;
}

uint32_t ceilDiv(size_t value, uint32_t divisor) {
    return static_cast<uint32_t>((value + divisor - 1) / divisor);
}

size_t elements(const Tensor& t) { return static_cast<size_t>(t.rows()) * t.cols(); }

// The memory ranges read and written since the last barrier; a new command that reads what was
// written, or writes what was read or written, needs a barrier first.
class HazardTracker {
  public:
    struct Range {
        VkBuffer buffer;
        VkDeviceSize begin;
        VkDeviceSize end;
        bool overlaps(const Range& o) const {
            return buffer == o.buffer && begin < o.end && o.begin < end;
        }
    };

    bool conflicts(const std::vector<Range>& reads, const std::vector<Range>& writes) const {
        auto any = [](const std::vector<Range>& a, const std::vector<Range>& b) {
            for (const Range& x : a)
                for (const Range& y : b)
                    if (x.overlaps(y)) return true;
            return false;
        };
        return any(reads, m_written) || any(writes, m_written) || any(writes, m_read);
    }
    void add(const std::vector<Range>& reads, const std::vector<Range>& writes) {
        m_read.insert(m_read.end(), reads.begin(), reads.end());
        m_written.insert(m_written.end(), writes.begin(), writes.end());
    }
    void clear() {
        m_read.clear();
        m_written.clear();
    }

  private:
    std::vector<Range> m_read;
    std::vector<Range> m_written;
};

HazardTracker::Range rangeOf(const BufferRegion& r) {
    return {r.buffer(), r.offset(), r.offset() + r.size()};
}

struct Binding {
    const BufferRegion* region;
    bool write;
};

// Key of an uploaded weight: the same host memory with the same layout is uploaded once.
using WeightKey = std::tuple<const float*, int, int, std::ptrdiff_t, std::ptrdiff_t>;

class VulkanBackend final : public Backend {
  public:
    explicit VulkanBackend(const VulkanOptions& options)
        : m_context(std::make_shared<Context>(options)),
          m_allocator(std::make_shared<DeviceAllocator>(m_context)),
          m_pipelines(m_context),
          m_upload(m_context, false),
          m_readback(m_context, true) {
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
        m_unused = m_allocator->allocate(16, "a placeholder binding");
    }

    ~VulkanBackend() override {
        // Work recorded but never submitted is dropped (its host destinations may be gone).
        m_allocator->completed(m_serial);
    }

    std::string name() const override { return "vulkan (" + m_context->info().name + ")"; }
    const VulkanCounters& counters() const { return m_counters; }

    std::unique_ptr<Tensor> create(int rows, int cols) override {
        return std::make_unique<VulkanTensor>(rows, cols, allocate(rows, cols, "a tensor"), false);
    }

    std::unique_ptr<Tensor> upload(const float* rowMajor, int rows, int cols) override {
        auto region = allocate(rows, cols, "an uploaded tensor");
        stageUpload(*region, static_cast<size_t>(rows) * cols,
                    [rowMajor](float* out, size_t first, size_t count) {
                        std::memcpy(out, rowMajor + first, count * sizeof(float));
                    });
        return std::make_unique<VulkanTensor>(rows, cols, std::move(region), false);
    }

    std::unique_ptr<Tensor> weight(const MatrixView& w) override {
        if (w.empty() || w.rows <= 0 || w.cols <= 0)
            throw Error("internal error: empty weight view");
        // A column-major view (Linear [out, in]) is kept in that layout: the GEMM reads both.
        const bool transposed = w.rowStride == 1 && w.colStride != 1;
        const WeightKey key{w.data, w.rows, w.cols, w.rowStride, w.colStride};
        if (auto it = m_weights.find(key); it != m_weights.end())
            if (auto parts = it->second.lock())
                return std::make_unique<VulkanTensor>(w.rows, w.cols, parts, transposed);

        const std::string what =
            "a " + std::to_string(w.rows) + " x " + std::to_string(w.cols) + " weight";
        // A transposed weight keeps each column's floats together, so it splits into column
        // ranges (whole 64-column GEMM tiles) that each fit one shader's addressable range.
        const VkDeviceSize range = m_context->properties().limits.maxStorageBufferRange;
        const VkDeviceSize columnBytes = VkDeviceSize{sizeof(float)} * w.rows;
        int partColumns = w.cols;
        if (transposed && columnBytes * w.cols > range)
            partColumns = static_cast<int>(range / columnBytes / gemm::kTileN * gemm::kTileN);
        if (partColumns <= 0) partColumns = w.cols;  // not splittable: allocate() explains
        auto parts = std::make_shared<TensorParts>();
        for (int first = 0; first < w.cols; first += partColumns) {
            const int columns = std::min(partColumns, w.cols - first);
            parts->push_back({allocate(w.rows, columns, what), first, columns});
            upload(w.columns(first, columns), transposed, *parts->back().region);
        }
        std::erase_if(m_weights, [](const auto& entry) { return entry.second.expired(); });
        m_weights.emplace(key, parts);
        return std::make_unique<VulkanTensor>(w.rows, w.cols, std::move(parts), transposed);
    }

    // Packs a weight view into its stored layout: `inner` contiguous floats per outer index.
    void upload(const MatrixView& w, bool transposed, const BufferRegion& region) {
        const size_t inner = transposed ? w.rows : w.cols;
        const std::ptrdiff_t innerStride = transposed ? w.rowStride : w.colStride;
        const std::ptrdiff_t outerStride = transposed ? w.colStride : w.rowStride;
        stageUpload(region, static_cast<size_t>(w.rows) * w.cols,
                    [=](float* out, size_t first, size_t count) {
                        while (count > 0) {
                            const size_t outer = first / inner;
                            const size_t i = first % inner;
                            const size_t run = std::min(count, inner - i);
                            const float* source = w.data + outer * outerStride + i * innerStride;
                            if (innerStride == 1) {
                                std::memcpy(out, source, run * sizeof(float));
                            } else {
                                for (size_t j = 0; j < run; ++j) out[j] = source[j * innerStride];
                            }
                            out += run;
                            first += run;
                            count -= run;
                        }
                    });
    }

    std::unique_ptr<Tensor> vector(const VectorView& v) override {
        return weight(MatrixView::rowMajor(v.data, 1, v.size));
    }

    void download(const Tensor& t, float* rowMajor) override {
        const VulkanTensor& source = vulkan(t);
        const size_t count = elements(t);
        if (!source.transposed()) {
            stageDownload(source.region(), 0, count, rowMajor);
            flush();
            return;
        }
        std::vector<float> stored(count);
        stageDownload(source.region(), 0, count, stored.data());
        flush();
        for (int r = 0; r < t.rows(); ++r)
            for (int c = 0; c < t.cols(); ++c)
                rowMajor[static_cast<size_t>(r) * t.cols() + c] =
                    stored[static_cast<size_t>(c) * t.rows() + r];
    }

    void enqueueDownload(const Tensor& t, float* rowMajor) override {
        const VulkanTensor& source = vulkan(t);
        if (source.transposed()) return download(t, rowMajor);  // weights only, never queued
        stageDownload(source.region(), 0, elements(t), rowMajor);
    }

    void synchronize() override { flush(); }

    void linear(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& y) override {
        requireShape(x.cols() == w.rows() && y.rows() == x.rows() && y.cols() == w.cols() &&
                         (!bias || static_cast<int>(elements(*bias)) == w.cols()),
                     "linear");
        const VulkanTensor& weights = vulkan(w);
        const uint32_t m = x.rows(), n = w.cols(), k = x.cols();
        for (const TensorPart& part : weights.parts()) {  // each writes its columns of y
            const uint32_t columns = part.columns;
            GemmParams p{};
            p.m = m;
            p.n = columns;
            p.k = k;
            p.lda = k;
            p.ldb = weights.transposed() ? k : columns;
            p.ldc = n;
            p.cOffset = part.firstColumn;
            p.biasOffset = part.firstColumn;
            p.aGroup = p.bGroup = 1;
            p.alpha = 1.0f;
            p.flags = (bias ? gemm::kBias : 0) | (k % 4 == 0 ? gemm::kVecA : 0) |
                      (p.ldb % 4 == 0 ? gemm::kVecB : 0) |
                      (n % 4 == 0 && columns % 4 == 0 && p.cOffset % 4 == 0 ? gemm::kVecC : 0);
            gemm(weights.transposed(), p, 1, rowMajor(x, "linear").region(), *part.region,
                 rowMajor(y, "linear").region(), bias ? &vulkan(*bias).region() : nullptr);
        }
    }

    void layerNorm(const Tensor& x, const Tensor& gamma, const Tensor* beta, float eps,
                   Tensor& y) override {
        norm(x, gamma, beta, eps, false, y);
    }

    void rmsNorm(const Tensor& x, const Tensor& gamma, float eps, Tensor& y) override {
        norm(x, gamma, nullptr, eps, true, y);
    }

    void activate(Tensor& x, Activation activation) override {
        uint32_t op = 0;
        switch (activation) {
            case Activation::GeluTanh:
                op = eltwise::kGeluTanh;
                break;
            case Activation::GeluExact:
                op = eltwise::kGeluExact;
                break;
            case Activation::Relu:
                op = eltwise::kRelu;
                break;
            case Activation::SwiGlu:
            case Activation::GeluTanhGlu:
                throw Error("internal error: a gated activation is a two-input op (glu)");
        }
        elementwise(x, nullptr, op, "activate");
    }

    void glu(const Tensor& gate, Tensor& up, Activation gated) override {
        requireShape(gate.rows() == up.rows() && gate.cols() == up.cols() && isGated(gated), "glu");
        elementwise(up, &gate,
                    gated == Activation::SwiGlu ? eltwise::kSwiGlu : eltwise::kGeluTanhGlu, "glu");
    }

    void add(Tensor& accumulator, const Tensor& x) override {
        requireShape(accumulator.rows() == x.rows() && accumulator.cols() == x.cols(), "add");
        elementwise(accumulator, &x, eltwise::kAdd, "add");
    }

    void rope(const Tensor& x, int headDim, int rotaryDims, float theta, Tensor& y) override {
        requireShape(x.rows() == y.rows() && x.cols() == y.cols() && headDim > 0 &&
                         rotaryDims > 0 && rotaryDims <= headDim && rotaryDims % 2 == 0 &&
                         x.cols() % headDim == 0,
                     "rope");
        const BufferRegion& table = ropeTable(x.rows(), rotaryDims, theta);
        RopeParams p{static_cast<uint32_t>(x.rows()), static_cast<uint32_t>(x.cols()),
                     static_cast<uint32_t>(headDim), static_cast<uint32_t>(rotaryDims)};
        const uint32_t workgroup = m_pipelines.get(Kernel::Rope).workgroupSize;
        dispatch(Kernel::Rope,
                 {{&rowMajor(x, "rope").region(), false},
                  {&table, false},
                  {&rowMajor(y, "rope").region(), true}},
                 p, std::min<uint32_t>(ceilDiv(elements(x), workgroup), 65535), 1, 1);
    }

    void copyRows(const Tensor& source, int first, int count, Tensor& destination) override {
        requireShape(first >= 0 && count >= 0 && first + count <= source.rows() &&
                         destination.rows() == count && destination.cols() == source.cols(),
                     "copyRows");
        if (count == 0) return;
        const VkDeviceSize rowBytes = sizeof(float) * source.cols();
        copy(rowMajor(source, "copyRows").region(), first * rowBytes,
             rowMajor(destination, "copyRows").region(), 0, count * rowBytes);
    }

    void attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionLayout& layout,
                   const AttentionOptions& options, Tensor& out,
                   const AttentionCapture* capture) override {
        const int n = q.rows();
        const int dk = layout.headDim;
        const int heads = layout.heads;
        auto columnsNeeded = [&](int group) { return ((heads - 1) / group + 1) * dk; };
        requireShape(heads > 0 && dk > 0 && layout.queryGroup > 0 && layout.keyGroup > 0 &&
                         layout.valueGroup > 0 && k.rows() == n && v.rows() == n &&
                         out.rows() == n && out.cols() == heads * dk &&
                         q.cols() >= columnsNeeded(layout.queryGroup) &&
                         k.cols() >= columnsNeeded(layout.keyGroup) &&
                         v.cols() >= columnsNeeded(layout.valueGroup),
                     "attention");
        if (n > 65535) throw Error("the Vulkan backend handles at most 65535 tokens");
        const BufferRegion& qr = rowMajor(q, "attention").region();
        const BufferRegion& kr = rowMajor(k, "attention").region();
        const BufferRegion& vr = rowMajor(v, "attention").region();
        const BufferRegion& outr = rowMajor(out, "attention").region();
        // Scores differ from the raw product when transformed or capped: they get their own buffer.
        const bool transform = options.transform != ScoreTransform::None || options.softCap > 0.0f;
        const float scale = options.scaleFor(dk);

        // Per-head matrices start on 256-byte boundaries; heads are processed in chunks so the
        // scratch stays within one shader-addressable range.
        const size_t headStride = (static_cast<size_t>(n) * n + 63) / 64 * 64;
        const size_t budget = std::min<VkDeviceSize>(
            m_context->properties().limits.maxStorageBufferRange, VkDeviceSize{256} << 20);
        const int chunk = static_cast<int>(std::clamp<size_t>(budget / (headStride * sizeof(float)),
                                                              1, static_cast<size_t>(heads)));
        const size_t scratchFloats = headStride * chunk;
        const BufferRegion& raw = scratch(m_rawScores, scratchFloats, "attention scores");
        const BufferRegion& probabilities =
            scratch(m_probabilities, scratchFloats, "attention probabilities");
        const BufferRegion* scores =
            transform ? &scratch(m_scores, scratchFloats, "transformed attention scores") : &raw;

        for (int base = 0; base < heads; base += chunk) {
            const int count = std::min(chunk, heads - base);
            // Scratch holds this chunk's heads only: its operand offset is minus the chunk's
            // first head, so (batchBase + z) * stride lands on local head z (uint wraps).
            const uint32_t localFirst = static_cast<uint32_t>(0u - base * headStride);

            GemmParams s{};  // raw = q_h k_h^T (scaled)
            s.m = n;
            s.n = n;
            s.k = dk;
            s.lda = q.cols();
            s.ldb = k.cols();
            s.ldc = n;
            s.cOffset = localFirst;
            s.aBatchStride = dk;
            s.bBatchStride = dk;
            s.cBatchStride = headStride;
            s.aGroup = layout.queryGroup;
            s.bGroup = layout.keyGroup;
            s.batchBase = base;
            s.alpha = options.scaleOutside ? 1.0f : scale;
            s.flags = (q.cols() % 4 == 0 && dk % 4 == 0 ? gemm::kVecA : 0) |
                      (k.cols() % 4 == 0 && dk % 4 == 0 ? gemm::kVecB : 0) |
                      (n % 4 == 0 ? gemm::kVecC : 0);
            gemm(true, s, count, qr, kr, raw, nullptr);

            SoftmaxParams sm{};
            sm.n = n;
            sm.headStride = headStride;
            sm.causal = options.causal;
            sm.maskSelf = options.maskSelf;
            sm.transform = options.transform == ScoreTransform::Symmetric ? transform::kSymmetric
                           : options.transform == ScoreTransform::Skew    ? transform::kSkew
                                                                          : transform::kNone;
            sm.postScale = options.scaleOutside ? scale : 1.0f;
            sm.softCap = options.softCap;
            sm.window = static_cast<uint32_t>(options.window);
            dispatch(Kernel::Softmax,
                     {{&raw, false},
                      {transform ? scores : m_unused.get(), true},
                      {&probabilities, true}},
                     sm, n, count, 1);

            if (capture) {
                for (int local = 0; local < count; ++local) {
                    const size_t h = base + local;
                    const VkDeviceSize offset = sizeof(float) * headStride * local;
                    const size_t values = static_cast<size_t>(n) * n;
                    if (h < capture->scores.size() && capture->scores[h])
                        stageDownload(*scores, offset, values, capture->scores[h]);
                    if (h < capture->probabilities.size() && capture->probabilities[h])
                        stageDownload(probabilities, offset, values, capture->probabilities[h]);
                }
            }

            GemmParams av{};  // out_h = A_h v_h
            av.m = n;
            av.n = dk;
            av.k = n;
            av.lda = n;
            av.ldb = v.cols();
            av.ldc = out.cols();
            av.aOffset = localFirst;
            av.aBatchStride = headStride;
            av.bBatchStride = dk;
            av.cBatchStride = dk;
            av.aGroup = 1;
            av.bGroup = layout.valueGroup;
            av.batchBase = base;
            av.alpha = 1.0f;
            av.flags = (options.causal ? gemm::kCausal : 0) | (n % 4 == 0 ? gemm::kVecA : 0) |
                       (v.cols() % 4 == 0 && dk % 4 == 0 ? gemm::kVecB : 0) |
                       (out.cols() % 4 == 0 && dk % 4 == 0 ? gemm::kVecC : 0);
            gemm(false, av, count, probabilities, vr, outr, nullptr);
        }
    }

  private:
    std::shared_ptr<BufferRegion> allocate(int rows, int cols, const std::string& what) {
        if (rows < 0 || cols < 0) throw Error("internal error: negative tensor shape");
        return m_allocator->allocate(VkDeviceSize{sizeof(float)} * rows * cols, what);
    }

    // A scratch buffer kept between calls, grown when a larger one is needed.
    const BufferRegion& scratch(std::shared_ptr<BufferRegion>& slot, size_t floats,
                                const std::string& what) {
        const VkDeviceSize bytes = floats * sizeof(float);
        if (!slot || slot->size() < bytes) {
            slot.reset();
            slot = m_allocator->allocate(bytes, what);
        }
        return *slot;
    }

    // C = alpha A B (+ bias) for `batches` batches: tiles of 64 x 64, or one invocation per
    // column when A has so few rows that a tile would mostly compute nothing.
    void gemm(bool transposedB, const GemmParams& p, uint32_t batches, const BufferRegion& a,
              const BufferRegion& b, const BufferRegion& c, const BufferRegion* bias) {
        std::initializer_list<Binding> bindings{
            {&a, false}, {&b, false}, {&c, true}, {bias ? bias : m_unused.get(), false}};
        if (p.m <= gemm::kGemvRows) {
            const Kernel kernel = transposedB ? Kernel::GemvTransposedB : Kernel::GemvRowMajorB;
            dispatch(kernel, bindings, p, ceilDiv(p.n, m_pipelines.get(kernel).workgroupSize), 1,
                     batches);
        } else {
            dispatch(transposedB ? Kernel::GemmTransposedB : Kernel::GemmRowMajorB, bindings, p,
                     ceilDiv(p.n, gemm::kTileN), ceilDiv(p.m, gemm::kTileM), batches);
        }
    }

    void norm(const Tensor& x, const Tensor& gamma, const Tensor* beta, float eps, bool rms,
              Tensor& y) {
        requireShape(x.rows() == y.rows() && x.cols() == y.cols() &&
                         static_cast<int>(elements(gamma)) == x.cols() &&
                         (!beta || static_cast<int>(elements(*beta)) == x.cols()),
                     rms ? "rmsNorm" : "layerNorm");
        NormParams p{static_cast<uint32_t>(x.rows()), static_cast<uint32_t>(x.cols()), eps,
                     rms ? 1u : 0u, beta ? 1u : 0u};
        const uint32_t rows = std::max(x.rows(), 1);
        const uint32_t gx = std::min<uint32_t>(rows, 65535);
        dispatch(Kernel::Norm,
                 {{&rowMajor(x, "norm").region(), false},
                  {&vulkan(gamma).region(), false},
                  {beta ? &vulkan(*beta).region() : m_unused.get(), false},
                  {&rowMajor(y, "norm").region(), true}},
                 p, gx, ceilDiv(rows, gx), 1);
    }

    void elementwise(Tensor& x, const Tensor* y, uint32_t op, const char* name) {
        const size_t count = elements(x);
        if (count == 0) return;
        EltwiseParams p{static_cast<uint32_t>(count), op};
        const uint32_t workgroup = m_pipelines.get(Kernel::Eltwise).workgroupSize;
        dispatch(Kernel::Eltwise,
                 {{&rowMajor(x, name).region(), true},
                  {y ? &rowMajor(*y, name).region() : m_unused.get(), false}},
                 p, std::min<uint32_t>(ceilDiv(count, workgroup), 65535), 1, 1);
    }

    // cos/sin of float32(pos) * float32(inv_freq) for positions 0..rows-1 over the rotated
    // dimensions, computed as the CPU backend does and kept until a longer input or another
    // (rotated width, theta) comes.
    const BufferRegion& ropeTable(int rows, int headDim, float theta) {
        if (!m_rope || m_ropeRows < rows || m_ropeHeadDim != headDim || m_ropeTheta != theta) {
            const int half = headDim / 2;
            std::vector<float> table(static_cast<size_t>(rows) * half * 2);
            for (int i = 0; i < half; ++i) {
                const float inverseFrequency =
                    static_cast<float>(std::pow(static_cast<double>(theta), -2.0 * i / headDim));
                for (int pos = 0; pos < rows; ++pos) {
                    const float angle = static_cast<float>(pos) * inverseFrequency;
                    table[(static_cast<size_t>(pos) * half + i) * 2] = std::cos(angle);
                    table[(static_cast<size_t>(pos) * half + i) * 2 + 1] = std::sin(angle);
                }
            }
            m_rope.reset();
            m_rope = m_allocator->allocate(table.size() * sizeof(float), "the rotary table");
            stageUpload(*m_rope, table.size(), [&](float* out, size_t first, size_t count) {
                std::memcpy(out, table.data() + first, count * sizeof(float));
            });
            m_ropeRows = rows;
            m_ropeHeadDim = headDim;
            m_ropeTheta = theta;
        }
        return *m_rope;
    }

    // --- recording ---

    void begin() {
        if (m_recording) return;
        VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        check(m_context->vk().vkBeginCommandBuffer(m_commands, &info), "vkBeginCommandBuffer");
        m_recording = true;
    }

    // Orders the new command after everything recorded before it, when their memory overlaps.
    void track(const std::vector<HazardTracker::Range>& reads,
               const std::vector<HazardTracker::Range>& writes,
               std::initializer_list<const BufferRegion*> used) {
        begin();
        if (m_hazards.conflicts(reads, writes)) {
            VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
            barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
            barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
            const VkPipelineStageFlags stages =
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
            m_context->vk().vkCmdPipelineBarrier(m_commands, stages, stages, 0, 1, &barrier, 0,
                                                 nullptr, 0, nullptr);
            m_hazards.clear();
            ++m_counters.barriers;
        }
        m_hazards.add(reads, writes);
        for (const BufferRegion* r : used) r->block().lastUse = m_serial;
    }

    template <typename Params>
    void dispatch(Kernel kernel, std::initializer_list<Binding> bindings, const Params& params,
                  uint32_t x, uint32_t y, uint32_t z) {
        const PipelineRecord& pipeline = m_pipelines.get(kernel);
        if (sizeof(Params) != pipeline.pushConstantBytes || bindings.size() != pipeline.bindings)
            throw Error(std::string("internal error: wrong arguments for kernel ") + pipeline.name);
        if (x == 0 || y == 0 || z == 0) return;

        std::vector<HazardTracker::Range> reads, writes;
        for (const Binding& b : bindings)
            if (b.region != m_unused.get())  // never read or written by the kernel
                (b.write ? writes : reads).push_back(rangeOf(*b.region));
        begin();
        VkDescriptorSet set = allocateSet(pipeline.setLayout.get());
        VkDescriptorBufferInfo infos[8];
        VkWriteDescriptorSet writesInfo[8];
        uint32_t i = 0;
        for (const Binding& b : bindings) {
            infos[i] = {b.region->buffer(), b.region->offset(), b.region->size()};
            writesInfo[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            writesInfo[i].dstSet = set;
            writesInfo[i].dstBinding = i;
            writesInfo[i].descriptorCount = 1;
            writesInfo[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            writesInfo[i].pBufferInfo = &infos[i];
            ++i;
        }
        const VulkanFunctions& vk = m_context->vk();
        vk.vkUpdateDescriptorSets(m_context->device(), i, writesInfo, 0, nullptr);

        track(reads, writes, {});
        for (const Binding& b : bindings) b.region->block().lastUse = m_serial;
        vk.vkCmdBindPipeline(m_commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline.get());
        vk.vkCmdBindDescriptorSets(m_commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                                   pipeline.layout.get(), 0, 1, &set, 0, nullptr);
        vk.vkCmdPushConstants(m_commands, pipeline.layout.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                              sizeof(Params), &params);
        vk.vkCmdDispatch(m_commands, x, y, z);
        ++m_counters.dispatches;
    }

    VkDescriptorSet allocateSet(VkDescriptorSetLayout layout) {
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
                m_descriptorPools.emplace_back(pool, [&vk, device](auto h) {
                    vk.vkDestroyDescriptorPool(device, h, nullptr);
                });
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

    void copy(const BufferRegion& source, VkDeviceSize sourceOffset, const BufferRegion& target,
              VkDeviceSize targetOffset, VkDeviceSize bytes) {
        const VkDeviceSize from = source.offset() + sourceOffset;
        const VkDeviceSize to = target.offset() + targetOffset;
        track({{source.buffer(), from, from + bytes}}, {{target.buffer(), to, to + bytes}},
              {&source, &target});
        VkBufferCopy region{from, to, bytes};
        m_context->vk().vkCmdCopyBuffer(m_commands, source.buffer(), target.buffer(), 1, &region);
    }

    // Host floats -> device region, through the upload arena in chunks; `fill` writes
    // elements [first, first + count) of the region's contents.
    void stageUpload(const BufferRegion& target, size_t count,
                     const std::function<void(float*, size_t, size_t)>& fill) {
        size_t done = 0;
        while (done < count) {
            VkDeviceSize offset = 0;
            const VkDeviceSize bytes = m_upload.take((count - done) * sizeof(float), offset);
            if (bytes == 0) {
                // Grow towards everything this batch wanted to stage.
                m_uploadDemand = m_upload.used() + (count - done) * sizeof(float);
                flush();
                continue;
            }
            const size_t chunk = bytes / sizeof(float);
            fill(reinterpret_cast<float*>(m_upload.data() + offset), done, chunk);
            const VkDeviceSize at = target.offset() + done * sizeof(float);
            track({}, {{target.buffer(), at, at + bytes}}, {&target});
            VkBufferCopy region{offset, at, bytes};
            m_context->vk().vkCmdCopyBuffer(m_commands, m_upload.buffer(), target.buffer(), 1,
                                            &region);
            m_counters.uploadedBytes += bytes;
            done += chunk;
        }
    }

    // Device region -> host floats at the next flush, through the readback arena.
    void stageDownload(const BufferRegion& source, VkDeviceSize sourceOffset, size_t count,
                       float* host) {
        size_t done = 0;
        while (done < count) {
            VkDeviceSize offset = 0;
            const VkDeviceSize bytes = m_readback.take((count - done) * sizeof(float), offset);
            if (bytes == 0) {
                m_readbackDemand = m_readback.used() + (count - done) * sizeof(float);
                flush();
                continue;
            }
            const size_t chunk = bytes / sizeof(float);
            const VkDeviceSize at = source.offset() + sourceOffset + done * sizeof(float);
            track({{source.buffer(), at, at + bytes}}, {}, {&source});
            VkBufferCopy region{at, offset, bytes};
            m_context->vk().vkCmdCopyBuffer(m_commands, source.buffer(), m_readback.buffer(), 1,
                                            &region);
            m_hostCopies.push_back({offset, host + done, chunk});
            done += chunk;
        }
    }

    // Submits what was recorded, waits, and delivers the staged readbacks to their host
    // destinations. The only place the host waits for the device.
    void flush() {
        if (!m_recording) return;
        m_recording = false;
        try {
            submitAndWait();
        } catch (...) {
            endBatch(false);
            throw;
        }
        m_readback.invalidateForHost();
        for (const HostCopy& c : m_hostCopies)
            std::memcpy(c.host, m_readback.data() + c.stagingOffset, c.count * sizeof(float));
        endBatch(true);
    }

    void submitAndWait() {
        const VulkanFunctions& vk = m_context->vk();
        const VkDevice device = m_context->device();
        if (!m_hostCopies.empty()) {
            // Make the transfers' writes visible to host reads after the fence.
            VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
            barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
            barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
            vk.vkCmdPipelineBarrier(m_commands, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                    VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr, 0,
                                    nullptr);
        }
        check(vk.vkEndCommandBuffer(m_commands), "vkEndCommandBuffer");
        m_upload.flushHostWrites();
        VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        submit.commandBufferCount = 1;
        submit.pCommandBuffers = &m_commands;
        const VkFence fence = m_fence.get();
        check(vk.vkQueueSubmit(m_context->queue(), 1, &submit, fence), "vkQueueSubmit");
        ++m_counters.submissions;
        const VkResult waited = vk.vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX);
        vk.vkResetFences(device, 1, &fence);
        check(waited, "vkWaitForFences");
    }

    // Starts the next batch: a fresh command buffer, descriptor pools and staging arenas (grown
    // towards what the last batch wanted, unless it failed).
    void endBatch(bool grow) {
        const VulkanFunctions& vk = m_context->vk();
        const VkDevice device = m_context->device();
        vk.vkResetCommandPool(device, m_commandPool.get(), 0);
        for (auto& pool : m_descriptorPools) vk.vkResetDescriptorPool(device, pool.get(), 0);
        m_poolIndex = 0;
        m_hazards.clear();
        m_hostCopies.clear();
        m_allocator->completed(m_serial);
        ++m_serial;
        m_upload.reset(grow ? std::exchange(m_uploadDemand, 0) : 0);
        m_readback.reset(grow ? std::exchange(m_readbackDemand, 0) : 0);
    }

    struct HostCopy {
        VkDeviceSize stagingOffset;
        float* host;
        size_t count;
    };

    // Declared first: everything below uses the device and is destroyed before it.
    std::shared_ptr<Context> m_context;
    std::shared_ptr<DeviceAllocator> m_allocator;
    Pipelines m_pipelines;
    StagingBuffer m_upload;
    StagingBuffer m_readback;
    Owned<VkCommandPool> m_commandPool;
    VkCommandBuffer m_commands = VK_NULL_HANDLE;  // freed with its pool
    Owned<VkFence> m_fence;
    std::vector<Owned<VkDescriptorPool>> m_descriptorPools;
    size_t m_poolIndex = 0;

    bool m_recording = false;
    uint64_t m_serial = 1;  // of the submission being recorded
    HazardTracker m_hazards;
    std::vector<HostCopy> m_hostCopies;
    VkDeviceSize m_uploadDemand = 0;
    VkDeviceSize m_readbackDemand = 0;
    VulkanCounters m_counters;

    std::map<WeightKey, std::weak_ptr<const TensorParts>> m_weights;
    std::shared_ptr<BufferRegion> m_unused;  // bound where a kernel's optional input is absent
    std::shared_ptr<BufferRegion> m_rawScores, m_scores, m_probabilities;
    std::shared_ptr<BufferRegion> m_rope;
    int m_ropeRows = 0;
    int m_ropeHeadDim = 0;
    float m_ropeTheta = 0.0f;
};

}  // namespace
}  // namespace gpu

std::unique_ptr<Backend> createVulkanBackend(const VulkanOptions& options) {
    return std::make_unique<gpu::VulkanBackend>(options);
}

std::optional<VulkanCounters> vulkanCounters(const Backend& backend) {
    if (auto* vulkan = dynamic_cast<const gpu::VulkanBackend*>(&backend)) return vulkan->counters();
    return std::nullopt;
}

}  // namespace qkv
