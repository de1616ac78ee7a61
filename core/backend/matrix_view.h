#pragma once
// Non-owning views of host memory with the layouts checkpoints use: a Conv1D weight stored
// [in, out] is row-major, a Linear weight stored [out, in] is the same matrix column-major, and
// GPT-2's fused c_attn is three column blocks of one row-major [in, 3d] tensor. A matrix keeps
// the element type it is stored in (F32, F16 or BF16); vectors (biases, norm scales) are float32.
#include <cstddef>

#include "core/backend/element_type.h"

namespace qkv {

struct MatrixView {
    const void* data = nullptr;
    int rows = 0;
    int cols = 0;
    std::ptrdiff_t rowStride = 0;  // element (r, c) is element r * rowStride + c * colStride
    std::ptrdiff_t colStride = 1;
    ElementType type = ElementType::F32;

    static MatrixView rowMajor(const float* data, int rows, int cols) {
        return {data, rows, cols, cols, 1};
    }
    static MatrixView colMajor(const float* data, int rows, int cols) {
        return {data, rows, cols, 1, rows};
    }

    bool empty() const { return data == nullptr; }
    bool isFloat32() const { return type == ElementType::F32; }
    // The elements as float32; only for a float32 view.
    const float* floats() const { return static_cast<const float*>(data); }
    float at(int r, int c) const { return elementAt(type, data, r * rowStride + c * colStride); }
    // The address of element `index` (strides count elements of the view's type).
    const void* element(std::ptrdiff_t index) const {
        return static_cast<const unsigned char*>(data) +
               index * static_cast<std::ptrdiff_t>(elementBytes(type));
    }
    MatrixView columns(int first, int count) const {
        return {element(first * colStride), rows, count, rowStride, colStride, type};
    }
    MatrixView rowRange(int first, int count) const {
        return {element(first * rowStride), count, cols, rowStride, colStride, type};
    }
    MatrixView transposed() const { return {data, cols, rows, colStride, rowStride, type}; }
};

struct VectorView {
    const float* data = nullptr;
    int size = 0;

    bool empty() const { return data == nullptr; }
    float operator[](int i) const { return data[i]; }
    VectorView slice(int first, int count) const { return {data + first, count}; }
};

}  // namespace qkv
