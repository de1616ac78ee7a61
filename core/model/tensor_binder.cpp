#include "core/model/tensor_binder.h"

#include <algorithm>
#include <cstring>

#include "core/format/fp8.h"
#include "core/format/mxfp4.h"
#include "core/util/error.h"

namespace qkv {
namespace {

std::string shapeText(const std::vector<std::int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

}  // namespace

TensorBinder::TensorBinder(TensorStore& store, std::vector<std::string> prefixes,
                           std::string folder)
    : m_store(store), m_prefixes(std::move(prefixes)), m_folder(std::move(folder)) {}

const TensorInfo* TensorBinder::resolve(const std::string& name) const {
    for (const auto& prefix : m_prefixes)
        if (const TensorInfo* t = m_store.find(prefix + name)) return t;
    return nullptr;
}

bool TensorBinder::has(const std::string& name) const { return resolve(name) != nullptr; }

std::vector<int> TensorBinder::rowOrder(const std::string& name) {
    const TensorInfo* t = resolve(name);
    if (!t) return {};
    m_ordered.insert(t->name);
    return t->rowOrder;
}

std::vector<int> TensorBinder::columnOrder(const std::string& name) {
    const TensorInfo* t = resolve(name);
    if (!t) return {};
    m_ordered.insert(t->name);
    return t->columnOrder;
}

const TensorInfo& TensorBinder::require(std::initializer_list<std::string> names) {
    for (const auto& name : names)
        if (const TensorInfo* t = resolve(name)) return *t;
    std::string tried;
    for (const auto& name : names)
        for (const auto& prefix : m_prefixes)
            tried += (tried.empty() ? "'" : ", '") + prefix + name + "'";
    throw Error(m_folder + ": missing tensor '" + *names.begin() + "' (looked for " + tried + ")");
}

void TensorBinder::check(const TensorInfo& tensor, const std::vector<std::int64_t>& expected) {
    requireShape(tensor, expected);
    countParameters(tensor, tensor.elementCount());
}

void TensorBinder::requireShape(const TensorInfo& tensor,
                                const std::vector<std::int64_t>& expected) const {
    if (tensor.shape != expected)
        throw Error(tensor.file.string() + ": tensor '" + tensor.name + "' has shape " +
                    shapeText(tensor.shape) + ", expected " + shapeText(expected) +
                    " from config.json");
}

void TensorBinder::countParameters(const TensorInfo& tensor, std::int64_t parameters) {
    if (m_counted.insert(tensor.name).second)
        m_parameters += static_cast<std::uint64_t>(parameters);
}

const float* TensorBinder::bind(const TensorInfo& tensor, std::vector<std::int64_t> expected) {
    check(tensor, expected);
    return m_store.floats(tensor);
}

MatrixView TensorBinder::matrix(const std::string& name, std::int64_t rows, std::int64_t cols) {
    const TensorInfo& t = require({name});
    check(t, {rows, cols});
    return storedMatrix(t);
}

// F16, BF16 and GGUF's blocks stay in the mapping (their readers copy each element out, so any
// alignment works); F32 too when aligned for float loads. Anything else is widened to float32 by
// the store.
MatrixView TensorBinder::storedMatrix(const TensorInfo& t) {
    if ((!t.rowOrder.empty() || !t.columnOrder.empty()) && !m_ordered.count(t.name))
        throw Error(m_folder + ": " + t.describe() +
                    " keeps its rows or columns in another order than the model uses them, which "
                    "this model family does not read");
    const int rows = static_cast<int>(t.shape[0]), cols = static_cast<int>(t.shape[1]);
    if (t.dtype == DType::F16 || t.dtype == DType::BF16) {
        const ElementType type = t.dtype == DType::F16 ? ElementType::F16 : ElementType::BF16;
        return {t.data, rows, cols, cols, 1, type};
    }
    if (t.dtype == DType::Block) return {t.data, rows, cols, cols, 1, t.blockType};
    if (t.dtype == DType::F8E4M3) return fp8Matrix(t);
    return MatrixView::rowMajor(m_store.floats(t), rows, cols);
}

// A Linear weight of the Hub's FP8 checkpoints: its e4m3 bytes stay in the mapping; its block
// scales (the weight's name + "_scale_inv", F32, BF16 or F16) are widened to float32 once.
MatrixView TensorBinder::fp8Matrix(const TensorInfo& t) {
    if (!m_fp8Blocks)
        throw Error(m_folder + ": " + t.describe() +
                    " is stored as float8, but config.json has no quantization_config with "
                    "quant_method \"fp8\" to say how it is scaled");
    const TensorInfo* scales = m_store.find(t.name + "_scale_inv");
    if (!scales)
        throw Error(m_folder + ": " + t.describe() + " has no block scales (tensor '" + t.name +
                    "_scale_inv')");
    const std::int64_t rows = t.shape[0], cols = t.shape[1];
    requireShape(*scales, {fp8ScaleRows(rows), fp8ScaleCols(cols)});
    return {t.data,
            static_cast<int>(rows),
            static_cast<int>(cols),
            cols,
            1,
            ElementType::Fp8Blocks,
            nullptr,
            0,
            m_store.floats(*scales),
            cols};
}

VectorView TensorBinder::vector(const std::string& name, std::int64_t size) {
    const TensorInfo& t = require({name});
    return {bind(t, {size}), static_cast<int>(size)};
}

VectorView TensorBinder::flatVector(const std::string& name,
                                    const std::vector<std::int64_t>& shape) {
    const TensorInfo& t = require({name});
    std::int64_t size = 1;
    for (std::int64_t extent : shape) size *= extent;
    // The same elements in the same order whatever axes of extent 1 the file gives the tensor
    // (a GGUF file's [channels, taps] for Hugging Face's [channels, 1, taps]).
    auto squeezed = [](std::vector<std::int64_t> extents) {
        std::erase(extents, 1);
        return extents;
    };
    return {bind(t, squeezed(t.shape) == squeezed(shape) ? t.shape : shape),
            static_cast<int>(size)};
}

VectorView TensorBinder::rowVector(const std::string& name, std::int64_t size) {
    const TensorInfo& t = require({name});
    return {bind(t, {1, size}), static_cast<int>(size)};
}

MatrixView TensorBinder::stackedMatrix(const std::string& name, std::int64_t count,
                                       std::int64_t rows, std::int64_t cols, int index) {
    if (!has(name) && has(name + "_blocks")) return stackedMxfp4(name, count, rows, cols, index);
    const TensorInfo& t = require({name});
    check(t, {count, rows, cols});
    const std::int64_t offset = index * rows * cols;
    const int r = static_cast<int>(rows), c = static_cast<int>(cols);
    if (t.dtype == DType::F16 || t.dtype == DType::BF16) {
        const ElementType type = t.dtype == DType::F16 ? ElementType::F16 : ElementType::BF16;
        return {t.data + offset * elementBytes(type), r, c, c, 1, type};
    }
    return MatrixView::rowMajor(m_store.floats(t) + offset, r, c);
}

// Each matrix is stored transposed: its column j's `rows` elements are rows / 32 blocks of 16
// bytes, with their scales in the same order. The view indexes nibbles (MatrixView).
MatrixView TensorBinder::stackedMxfp4(const std::string& name, std::int64_t count,
                                      std::int64_t rows, std::int64_t cols, int index) {
    const TensorInfo& blocks = require({name + "_blocks"});
    const TensorInfo& scales = require({name + "_scales"});
    for (const TensorInfo* t : {&blocks, &scales})
        if (t->dtype != DType::U8)
            throw Error(t->file.string() + ": tensor '" + t->name + "' has dtype " +
                        dtypeName(t->dtype) + ", expected U8 (MXFP4 blocks and scales)");
    const auto blockCount = static_cast<std::int64_t>(kMxfp4BlockElements);
    if (rows % blockCount != 0)
        throw Error(
            blocks.file.string() + ": tensor '" + blocks.name + "' packs " + std::to_string(rows) +
            " inputs per output in MXFP4, which needs a multiple of " + std::to_string(blockCount));
    requireShape(blocks, {count, cols, rows / blockCount, blockCount / 2});
    requireShape(scales, {count, cols, rows / blockCount});
    countParameters(blocks, count * rows * cols);
    const std::int64_t elements = static_cast<std::int64_t>(index) * rows * cols;
    return {blocks.data + elements / 2,
            static_cast<int>(rows),
            static_cast<int>(cols),
            1,
            rows,
            ElementType::Mxfp4,
            scales.data + elements / blockCount};
}

VectorView TensorBinder::stackedVector(const std::string& name, std::int64_t count,
                                       std::int64_t size, int index) {
    const TensorInfo& t = require({name});
    return {bind(t, {count, size}) + index * size, static_cast<int>(size)};
}

VectorView TensorBinder::normWeight(const std::string& module, std::int64_t size) {
    const TensorInfo& t = require({module + ".weight", module + ".gamma"});
    return {bind(t, {size}), static_cast<int>(size)};
}

VectorView TensorBinder::normBias(const std::string& module, std::int64_t size) {
    const TensorInfo& t = require({module + ".bias", module + ".beta"});
    return {bind(t, {size}), static_cast<int>(size)};
}

MatrixView TensorBinder::selectedRows(const std::string& name, std::int64_t rows, std::int64_t cols,
                                      const std::vector<int>& rowIndices) {
    const TensorInfo& t = require({name});
    check(t, {rows, cols});
    const MatrixView source = storedMatrix(t);
    if (!isByteAddressable(source.type))
        throw Error(m_folder + ": " + t.describe() +
                    ": rows of a quantised tensor are not selected");
    // The rows are copied in their stored element type: no float32 copy of the weight.
    const size_t rowBytes = cols * elementBytes(source.type);
    std::vector<float>& out =
        m_derived.emplace_back((rowIndices.size() * rowBytes + sizeof(float) - 1) / sizeof(float));
    auto* bytes = reinterpret_cast<unsigned char*>(out.data());
    for (size_t r = 0; r < rowIndices.size(); ++r)
        std::memcpy(bytes + r * rowBytes, source.element(rowIndices[r] * source.rowStride),
                    rowBytes);
    return {out.data(), static_cast<int>(rowIndices.size()), static_cast<int>(cols), cols, 1,
            source.type};
}

VectorView TensorBinder::selectedElements(const std::string& name, std::int64_t size,
                                          const std::vector<int>& indices) {
    const TensorInfo& t = require({name});
    const float* source = bind(t, {size});
    std::vector<float>& out = m_derived.emplace_back(indices.size());
    for (size_t i = 0; i < indices.size(); ++i) out[i] = source[indices[i]];
    return {out.data(), static_cast<int>(indices.size())};
}

MatrixView TensorBinder::computedMatrix(std::vector<float> values, std::int64_t rows,
                                        std::int64_t cols) {
    const std::vector<float>& stored = m_derived.emplace_back(std::move(values));
    return MatrixView::rowMajor(stored.data(), static_cast<int>(rows), static_cast<int>(cols));
}

VectorView TensorBinder::computedVector(std::vector<float> values) {
    const std::vector<float>& stored = m_derived.emplace_back(std::move(values));
    return {stored.data(), static_cast<int>(stored.size())};
}

VectorView TensorBinder::unitOffsetNormWeight(const std::string& module, std::int64_t size) {
    const VectorView w = normWeight(module, size);
    std::vector<float>& out = m_derived.emplace_back(w.size);
    for (int i = 0; i < w.size; ++i) out[i] = 1.0f + w[i];  // float32, as HF computes it
    return {out.data(), w.size};
}

}  // namespace qkv
