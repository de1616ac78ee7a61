#pragma once
// Resolves checkpoint tensor names to views with shape checks: matrices in their stored element
// type (F32, F16, BF16, MXFP4, FP8, in the file mapping), vectors as float32. Names are tried with
// each of the architecture's prefixes ("" and "transformer." for GPT-2, say), and LayerNorm
// parameters also under their legacy gamma/beta names. Errors name the tensor and what was
// expected.
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include "core/backend/matrix_view.h"
#include "core/io/safetensors.h"

namespace qkv {

class TensorBinder {
  public:
    TensorBinder(TensorStore& store, std::vector<std::string> prefixes, std::string folder);

    // A 2-D tensor with exactly this shape, as row-major [rows, cols].
    MatrixView matrix(const std::string& name, std::int64_t rows, std::int64_t cols);
    VectorView vector(const std::string& name, std::int64_t size);
    VectorView rowVector(const std::string& name, std::int64_t size);  // stored as [1, size]
    // Every element of a tensor of exactly `shape` in stored order (a convolution's [channels,
    // 1, taps]), as float32.
    VectorView flatVector(const std::string& name, const std::vector<std::int64_t>& shape);
    // Matrix `index` of a [count, rows, cols] tensor (a mixture's experts stored together), as
    // row-major [rows, cols] in its stored element type, or of its MXFP4 packing (gpt-oss's
    // name_blocks U8 [count, cols, rows/32, 16] and name_scales U8 [count, cols, rows/32]) as a
    // column-major MXFP4 view; row `index` of a [count, size] one.
    MatrixView stackedMatrix(const std::string& name, std::int64_t count, std::int64_t rows,
                             std::int64_t cols, int index);
    VectorView stackedVector(const std::string& name, std::int64_t count, std::int64_t size,
                             int index);
    bool has(const std::string& name) const;
    // TensorInfo::rowOrder of the tensor `name` (empty where it is stored as the model uses it).
    // A tensor stored in another row order binds only once its order was asked for here: a
    // reader that would ignore it is refused.
    std::vector<int> rowOrder(const std::string& name);
    // TensorInfo::columnOrder, likewise.
    std::vector<int> columnOrder(const std::string& name);
    // LayerNorm weight/bias, accepting ".gamma"/".beta" for ".weight"/".bias".
    VectorView normWeight(const std::string& module, std::int64_t size);
    VectorView normBias(const std::string& module, std::int64_t size);

    // Derived tensors, owned by the binder until takeDerived(): a layout the forward cannot view
    // in place (GPT-NeoX's per-head interleaved query_key_value) or a reparameterised weight.
    // The rows `rowIndices` of a [rows, cols] tensor, as a row-major [rowIndices.size(), cols]
    // in the tensor's stored element type.
    MatrixView selectedRows(const std::string& name, std::int64_t rows, std::int64_t cols,
                            const std::vector<int>& rowIndices);
    VectorView selectedElements(const std::string& name, std::int64_t size,
                                const std::vector<int>& indices);
    // 1 + w of a norm weight (Gemma stores RMSNorm scales as offsets from one).
    VectorView unitOffsetNormWeight(const std::string& module, std::int64_t size);
    // A [rows, cols] float32 matrix the family computes (Marian's sinusoidal positions).
    MatrixView computedMatrix(std::vector<float> values, std::int64_t rows, std::int64_t cols);
    // A float32 vector the family computes (the unit gains of a norm stored without weights).
    VectorView computedVector(std::vector<float> values);
    std::deque<std::vector<float>> takeDerived() { return std::move(m_derived); }

    std::uint64_t parameterCount() const { return m_parameters; }
    // Lets F8_E4M3 weights bind, with their 128 x 128 block scales (fp8.h): for a checkpoint
    // whose quantization_config says so.
    void allowFp8Blocks() { m_fp8Blocks = true; }

  private:
    const TensorInfo* resolve(const std::string& name) const;
    const TensorInfo& require(std::initializer_list<std::string> names);
    // Throws unless the shape is `expected`; counts the tensor's parameters once.
    void check(const TensorInfo& tensor, const std::vector<std::int64_t>& expected);
    void requireShape(const TensorInfo& tensor, const std::vector<std::int64_t>& expected) const;
    void countParameters(const TensorInfo& tensor, std::int64_t parameters);  // once per tensor
    MatrixView stackedMxfp4(const std::string& name, std::int64_t count, std::int64_t rows,
                            std::int64_t cols, int index);
    const float* bind(const TensorInfo& tensor, std::vector<std::int64_t> expected);
    MatrixView storedMatrix(const TensorInfo& tensor);
    MatrixView fp8Matrix(const TensorInfo& tensor);

    TensorStore& m_store;
    std::vector<std::string> m_prefixes;
    std::string m_folder;
    std::uint64_t m_parameters = 0;
    bool m_fp8Blocks = false;
    std::set<std::string> m_counted;  // tensors already in m_parameters (fused ones bind twice)
    std::set<std::string> m_ordered;  // tensors whose rowOrder and columnOrder a reader asked for
    std::deque<std::vector<float>> m_derived;
};

}  // namespace qkv
