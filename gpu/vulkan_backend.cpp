// The Vulkan backend's ops. Recording and submission live in CommandRecorder, host transfers in
// Staging, weight uploads in WeightUploader, products in GemmDispatcher, rotary tables in
// RopeTables, the token mixers in Mixers; this file turns each Backend op into dispatches.
//
// The token mixers (attention, Gated DeltaNet, the short convolution) are Mixers'.
#include "gpu/vulkan_backend.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/backend/op_shapes.h"
#include "core/util/error.h"
#include "gpu/vulkan_gemm.h"
#include "gpu/vulkan_mixers.h"
#include "gpu/vulkan_recorder.h"
#include "gpu/vulkan_rope_tables.h"
#include "gpu/vulkan_staging.h"
#include "gpu/vulkan_tensor.h"
#include "gpu/vulkan_weights.h"

namespace qkv {
namespace gpu {
namespace {

class VulkanBackend final : public Backend {
  public:
    explicit VulkanBackend(const VulkanOptions& options)
        : m_context(std::make_shared<Context>(options)),
          m_allocator(std::make_shared<DeviceAllocator>(m_context)),
          m_recorder(m_context, m_allocator),
          m_staging(m_context, m_recorder),
          m_weights(m_allocator, m_staging, m_context->properties().limits.maxStorageBufferRange),
          m_gemm(m_recorder, m_allocator),
          m_ropeTables(m_allocator, m_staging),
          m_mixers(m_context, m_allocator, m_recorder, m_staging, m_gemm) {}

    std::string name() const override { return "vulkan (" + m_context->info().name + ")"; }
    VulkanCounters counters() const {
        return {m_recorder.dispatches(), m_recorder.barriers(), m_recorder.submissions(),
                m_staging.uploadedBytes()};
    }

    std::unique_ptr<Tensor> create(int rows, int cols) override {
        return std::make_unique<VulkanTensor>(rows, cols, allocate(rows, cols, "a tensor"), false);
    }

    std::unique_ptr<Tensor> upload(const float* rowMajor, int rows, int cols) override {
        auto region = allocate(rows, cols, "an uploaded tensor");
        m_staging.upload(*region, static_cast<size_t>(rows) * cols, sizeof(float),
                         [rowMajor](void* out, size_t first, size_t count) {
                             std::memcpy(out, rowMajor + first, count * sizeof(float));
                         });
        return std::make_unique<VulkanTensor>(rows, cols, std::move(region), false);
    }

    std::unique_ptr<Tensor> weight(const MatrixView& w) override { return m_weights.upload(w); }

    std::unique_ptr<Tensor> vector(const VectorView& v) override {
        return weight(MatrixView::rowMajor(v.data, 1, v.size));
    }

    void download(const Tensor& t, float* rowMajor) override {
        const VulkanTensor& source = vulkan(t);
        const size_t count = elements(t);
        if (!source.transposed() && source.type() == ElementType::F32) {
            m_staging.download(source.region(), 0, count * sizeof(float), rowMajor);
            m_recorder.flush();
            return;
        }
        // A weight as stored (transposed, or F16/BF16): widened, then laid out row-major.
        std::vector<std::byte> raw(count * elementBytes(source.type()));
        m_staging.download(source.region(), 0, raw.size(), raw.data());
        m_recorder.flush();
        std::vector<float> stored(count);
        widen(source.type(), raw.data(), count, stored.data());
        if (!source.transposed()) {
            std::copy(stored.begin(), stored.end(), rowMajor);
            return;
        }
        for (int r = 0; r < t.rows(); ++r)
            for (int c = 0; c < t.cols(); ++c)
                rowMajor[static_cast<size_t>(r) * t.cols() + c] =
                    stored[static_cast<size_t>(c) * t.rows() + r];
    }

    void enqueueDownload(const Tensor& t, float* rowMajor) override {
        const VulkanTensor& source = vulkan(t);
        if (source.transposed() || source.type() != ElementType::F32)
            return download(t, rowMajor);  // weights only, never queued
        m_staging.download(source.region(), 0, elements(t) * sizeof(float), rowMajor);
    }

    void synchronize() override { m_recorder.flush(); }

    void linear(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& y) override {
        m_shapes.linear(x, w, bias, y);
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
            m_gemm.run(weights.transposed(), p, 1, rowMajor(x, "linear").region(), *part.region,
                       rowMajor(y, "linear").region(), bias ? &vulkan(*bias).region() : nullptr,
                       weights.type());
        }
    }

    void layerNorm(const Tensor& x, const Tensor& gamma, const Tensor* beta, float eps,
                   Tensor& y) override {
        m_shapes.layerNorm(x, gamma, beta, y);
        norm(x, x.rows(), x.cols(), &gamma, beta, eps, norm::kLayer, y);
    }

    void rmsNorm(const Tensor& x, const Tensor& gamma, float eps, Tensor& y) override {
        m_shapes.rmsNorm(x, gamma, y);
        norm(x, x.rows(), x.cols(), &gamma, nullptr, eps, norm::kRms, y);
    }

    // Row-major heads side by side are rows * heads rows of headDim: the norm kernel's layout.
    void rmsNormHeads(const Tensor& x, int headDim, const Tensor& gamma, float eps,
                      Tensor& y) override {
        m_shapes.rmsNormHeads(x, headDim, gamma, y);
        norm(x, x.rows() * (x.cols() / headDim), headDim, &gamma, nullptr, eps, norm::kRms, y);
    }

    void gaussianTopK(const Tensor& x, float z, Tensor& y) override {
        m_shapes.gaussianTopK(x, y);
        norm(x, x.rows(), x.cols(), nullptr, nullptr, z, norm::kGaussianTopK, y);
    }
    void normalizeHeads(const Tensor& x, int headDim, float eps, Tensor& y) override {
        m_shapes.normalizeHeads(x, headDim, y);
        norm(x, x.rows() * (x.cols() / headDim), headDim, nullptr, nullptr, eps, norm::kUnit, y);
    }

    void activate(Tensor& x, Activation activation) override {
        m_shapes.activate(activation);
        const uint32_t op = activation == Activation::GeluTanh      ? eltwise::kGeluTanh
                            : activation == Activation::GeluExact   ? eltwise::kGeluExact
                            : activation == Activation::Relu        ? eltwise::kRelu
                            : activation == Activation::ReluSquared ? eltwise::kReluSquared
                                                                    : eltwise::kSilu;
        elementwise(x, nullptr, op, "activate");
    }

    void xielu(Tensor& x, const XIeluParameters& parameters) override {
        elementwise(x, nullptr, eltwise::kXIelu, "xielu", parameters);
    }

    void glu(const Tensor& gate, Tensor& up, Activation gated) override {
        m_shapes.glu(gate, up, gated);
        elementwise(up, &gate,
                    gated == Activation::SwiGlu          ? eltwise::kSwiGlu
                    : gated == Activation::SigmoidGlu    ? eltwise::kSigmoidGlu
                    : gated == Activation::ProductGlu    ? eltwise::kProductGlu
                    : gated == Activation::GeluGlu       ? eltwise::kGeluGlu
                    : gated == Activation::ClampedSwiGlu ? eltwise::kClampedSwiGluApart
                                                         : eltwise::kGeluTanhGlu,
                    "glu");
    }

    void clampedSwiGlu(const Tensor& gateUp, Tensor& out) override {
        m_shapes.clampedSwiGlu(gateUp, out);
        elementwise(out, &gateUp, eltwise::kClampedSwiGlu, "clampedSwiGlu");
    }

    void add(Tensor& accumulator, const Tensor& x) override {
        m_shapes.add(accumulator, x);
        elementwise(accumulator, &x, eltwise::kAdd, "add");
    }

    void rope(const Tensor& x, int headDim, const RotaryFrequencies& frequencies, int firstPosition,
              Tensor& y) override {
        const int rotaryDims = frequencies.rotaryDims();
        m_shapes.rope(x, headDim, rotaryDims, firstPosition, y);
        const BufferRegion& table = m_ropeTables.table(firstPosition + x.rows(), frequencies);
        RopeParams p{static_cast<uint32_t>(x.rows()),      static_cast<uint32_t>(x.cols()),
                     static_cast<uint32_t>(headDim),       static_cast<uint32_t>(rotaryDims),
                     static_cast<uint32_t>(firstPosition), frequencies.interleaved ? 1u : 0u};
        const uint32_t workgroup = m_recorder.pipeline(Kernel::Rope).workgroupSize;
        m_recorder.dispatch(Kernel::Rope,
                            {{&rowMajor(x, "rope").region(), false},
                             {&table, false},
                             {&rowMajor(y, "rope").region(), true}},
                            p, std::min<uint32_t>(ceilDiv(elements(x), workgroup), 65535), 1, 1);
    }

    void copyRows(const Tensor& source, int first, int count, Tensor& destination,
                  int destinationFirst) override {
        m_shapes.copyRows(source, first, count, destination, destinationFirst);
        if (count == 0) return;
        const VkDeviceSize rowBytes = sizeof(float) * source.cols();
        m_recorder.copy(
            CopyEnd::at(rowMajor(source, "copyRows").region(), first * rowBytes),
            CopyEnd::at(rowMajor(destination, "copyRows").region(), destinationFirst * rowBytes),
            count * rowBytes);
    }

    void gatherRows(const Tensor& source, const std::vector<int>& rows,
                    Tensor& destination) override {
        m_shapes.gatherRows(source, rows, destination);
        moveRows(source, rows, nullptr, destination, rows::kGather);
    }

    void addWeightedRows(const Tensor& source, const std::vector<int>& rows,
                         const std::vector<float>& weights, Tensor& destination) override {
        m_shapes.addWeightedRows(source, rows, weights, destination);
        moveRows(source, rows, &weights, destination, rows::kAddWeighted);
    }

    void gatherColumns(const Tensor& first, const Tensor* second, const std::vector<int>& columns,
                       Tensor& destination) override {
        m_shapes.gatherColumns(first, second, columns, destination);
        const int rows = destination.rows(), cols = destination.cols();
        if (rows == 0 || cols == 0) return;
        auto listed = uploadIndices(columns);
        const Tensor& other = second ? *second : first;  // unread without a second source
        const ColumnsParams p{static_cast<uint32_t>(rows), static_cast<uint32_t>(cols),
                              static_cast<uint32_t>(first.cols()),
                              static_cast<uint32_t>(second ? second->cols() : 0)};
        const char* op = "gatherColumns";
        dispatchOverRows(Kernel::Columns,
                         {{&rowMajor(first, op).region(), false},
                          {&rowMajor(other, op).region(), false},
                          {&rowMajor(*listed, op).region(), false},
                          {&rowMajor(destination, op).region(), true}},
                         p, cols, rows);
    }

    void attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionLayout& layout,
                   const AttentionOptions& options, Tensor& out,
                   const AttentionCapture* capture) override {
        if (options.firstQuery > 0) {
            // The kernels have no query offset: every query's rows are computed and the later
            // ones kept (prefix reuse saves this backend its linear layers, not its attention).
            m_shapes.require(out.rows() == q.rows() - options.firstQuery, "attention");
            AttentionOptions whole = options;
            whole.firstQuery = 0;
            auto all = create(q.rows(), out.cols());
            attention(q, k, v, layout, whole, *all, capture);
            copyRows(*all, options.firstQuery, out.rows(), out, 0);
            return;
        }
        m_mixers.attention(q, k, v, layout, options, out, capture);
    }

    void gatedDeltaRule(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& b,
                        const Tensor& a, const Tensor& aLog, const Tensor& dtBias,
                        const DeltaRuleLayout& layout, Tensor& out,
                        const AttentionCapture* capture) override {
        m_shapes.gatedDeltaRule(q, k, v, b, a, aLog, dtBias, layout, out);
        m_mixers.gatedDeltaRule(q, k, v, b, a, aLog, dtBias, layout, out, capture);
    }

    void stateSpace(const Tensor& x, const Tensor& B, const Tensor& C, const Tensor& dt,
                    const Tensor& aLog, const Tensor& dtBias, const Tensor& D,
                    const StateSpaceLayout& layout, Tensor& out,
                    const AttentionCapture* capture) override {
        m_shapes.stateSpace(x, B, C, dt, aLog, dtBias, D, layout, out);
        m_mixers.stateSpace(x, B, C, dt, aLog, dtBias, D, layout, out, capture);
    }

    void causalConv(const Tensor& x, const Tensor& taps, const Tensor* bias, Tensor& y) override {
        m_shapes.causalConv(x, taps, bias, y);
        m_mixers.causalConv(x, taps, bias, y);
    }

  private:
    // rows.comp over the listed rows; the list travels as a small tensor of their bit
    // patterns, the weights as another (gather binds the list in their place: unread).
    void moveRows(const Tensor& source, const std::vector<int>& rows,
                  const std::vector<float>* weights, Tensor& destination, uint32_t mode) {
        if (rows.empty() || source.cols() == 0) return;
        const int count = static_cast<int>(rows.size());
        auto listed = uploadIndices(rows);
        auto weighed = weights ? upload(weights->data(), 1, count) : nullptr;
        const RowsParams p{static_cast<uint32_t>(count), static_cast<uint32_t>(source.cols()),
                           mode};
        dispatchOverRows(Kernel::Rows,
                         {{&rowMajor(source, "rows").region(), false},
                          {&rowMajor(destination, "rows").region(), true},
                          {&rowMajor(*listed, "rows").region(), false},
                          {&rowMajor(weighed ? *weighed : *listed, "rows").region(), false}},
                         p, source.cols(), count);
    }

    // An index list travels as a small tensor of the indices' bit patterns.
    std::unique_ptr<Tensor> uploadIndices(const std::vector<int>& indices) {
        std::vector<float> bits(indices.size());
        std::memcpy(bits.data(), indices.data(), indices.size() * sizeof(int));
        return upload(bits.data(), 1, static_cast<int>(indices.size()));
    }

    // One invocation per column along x, one row per y (rows beyond 65,535 fold into z).
    template <class Params>
    void dispatchOverRows(Kernel kernel, std::initializer_list<Binding> bindings, const Params& p,
                          int cols, int rows) {
        const uint32_t workgroup = m_recorder.pipeline(kernel).workgroupSize;
        const uint32_t groupsY = std::min<uint32_t>(rows, 65535);
        m_recorder.dispatch(kernel, bindings, p, ceilDiv(cols, workgroup), groupsY,
                            ceilDiv(rows, groupsY));
    }

    std::shared_ptr<BufferRegion> allocate(int rows, int cols, const std::string& what) {
        if (rows < 0 || cols < 0) throw Error("internal error: negative tensor shape");
        return m_allocator->allocate(VkDeviceSize{sizeof(float)} * rows * cols, what);
    }

    // One workgroup per row of `cols` over x's buffer read as `rows` x `cols`.
    void norm(const Tensor& x, int rows, int cols, const Tensor* gamma, const Tensor* beta,
              float eps, uint32_t kind, Tensor& y) {
        const uint32_t gammaBlocks = gamma ? static_cast<uint32_t>(elements(*gamma) / cols) : 1u;
        NormParams p{
            static_cast<uint32_t>(rows), static_cast<uint32_t>(cols), eps, kind, beta ? 1u : 0u,
            std::max(gammaBlocks, 1u)};
        const uint32_t groups = std::max(rows, 1);
        const uint32_t gx = std::min<uint32_t>(groups, 65535);
        m_recorder.dispatch(Kernel::Norm,
                            {{&rowMajor(x, "norm").region(), false},
                             {gamma ? &vulkan(*gamma).region() : nullptr, false},
                             {beta ? &vulkan(*beta).region() : nullptr, false},
                             {&rowMajor(y, "norm").region(), true}},
                            p, gx, ceilDiv(groups, gx), 1);
    }

    void elementwise(Tensor& x, const Tensor* y, uint32_t op, const char* name,
                     const XIeluParameters& xielu = {}) {
        const size_t count = elements(x);
        if (count == 0) return;
        EltwiseParams p{
            static_cast<uint32_t>(count), op, xielu.alphaP, xielu.alphaN, xielu.beta, xielu.eps};
        const uint32_t workgroup = m_recorder.pipeline(Kernel::Eltwise).workgroupSize;
        m_recorder.dispatch(Kernel::Eltwise,
                            {{&rowMajor(x, name).region(), true},
                             {y ? &rowMajor(*y, name).region() : nullptr, false}},
                            p, std::min<uint32_t>(ceilDiv(count, workgroup), 65535), 1, 1);
    }

    // Declared first: everything below uses the device and is destroyed before it.
    const OpShapes m_shapes{"vulkan"};
    std::shared_ptr<Context> m_context;
    std::shared_ptr<DeviceAllocator> m_allocator;
    CommandRecorder m_recorder;
    Staging m_staging;
    WeightUploader m_weights;
    GemmDispatcher m_gemm;
    RopeTables m_ropeTables;
    Mixers m_mixers;
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
