#pragma once
// Non-owning float32 views of host memory with the layouts checkpoints use: a Conv1D weight
// stored [in, out] is row-major, a Linear weight stored [out, in] is the same matrix column-major,
// and GPT-2's fused c_attn is three column blocks of one row-major [in, 3d] tensor.
#include <cstddef>

namespace qkv {

struct MatrixView {
    const float* data = nullptr;
    int rows = 0;
    int cols = 0;
    std::ptrdiff_t rowStride = 0;  // element (r, c) = data[r * rowStride + c * colStride]
    std::ptrdiff_t colStride = 1;

    static MatrixView rowMajor(const float* data, int rows, int cols) {
        return {data, rows, cols, cols, 1};
    }
    static MatrixView colMajor(const float* data, int rows, int cols) {
        return {data, rows, cols, 1, rows};
    }

    bool empty() const { return data == nullptr; }
    float at(int r, int c) const { return data[r * rowStride + c * colStride]; }
    MatrixView columns(int first, int count) const {
        return {data + first * colStride, rows, count, rowStride, colStride};
    }
    MatrixView transposed() const { return {data, cols, rows, colStride, rowStride}; }
};

struct VectorView {
    const float* data = nullptr;
    int size = 0;

    bool empty() const { return data == nullptr; }
    float operator[](int i) const { return data[i]; }
    VectorView slice(int first, int count) const { return {data + first, count}; }
};

}  // namespace qkv
