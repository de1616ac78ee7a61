#pragma once
// Non-owning views of host memory with the layouts checkpoints use: a Conv1D weight stored
// [in, out] is row-major, a Linear weight stored [out, in] is the same matrix column-major, and
// GPT-2's fused c_attn is three column blocks of one row-major [in, 3d] tensor. A matrix keeps
// the element type it is stored in (F32, F16, BF16, MXFP4, FP8 or a GGUF block type); vectors
// (biases, norm scales) are float32.
#include <cstddef>
#include <cstdint>

#include "core/format/element_type.h"
#include "core/format/fp8.h"
#include "core/format/ggml_blocks.h"
#include "core/format/mxfp4.h"
#include "core/util/error.h"

namespace qkv {

struct MatrixView {
    const void* data = nullptr;
    int rows = 0;
    int cols = 0;
    std::ptrdiff_t rowStride = 0;  // element (r, c) is element r * rowStride + c * colStride
    std::ptrdiff_t colStride = 1;
    ElementType type = ElementType::F32;
    // MXFP4 only: `data` holds the nibbles and `scales` one byte per 32 elements, so offsets
    // into such a view (columns, rowRange) must fall on whole blocks.
    const std::uint8_t* scales = nullptr;
    // GGUF block types and FP8: `data` is the block (FP8: the whole stored tensor) holding
    // element (0, 0), `origin` elements into it (a head's rows of an output projection start
    // inside a block).
    std::ptrdiff_t origin = 0;
    // FP8 only: the float32 scale of each 128 x 128 block of the stored tensor, which is
    // `storedCols` wide (where an element falls in the grid).
    const float* blockScales = nullptr;
    std::int64_t storedCols = 0;

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
    float at(int r, int c) const {
        const std::ptrdiff_t index = r * rowStride + c * colStride;
        if (isGgmlBlockType(type) || type == ElementType::Fp8Blocks) {
            float value;
            widenRun(index, 1, &value);
            return value;
        }
        return type == ElementType::Mxfp4 ? mxfp4At(bytes(), scales, index)
                                          : elementAt(type, data, index);
    }
    // Widens `count` elements from element `index` on (consecutive in memory) into `out`.
    void widenRun(std::ptrdiff_t index, std::size_t count, float* out) const {
        if (type == ElementType::Mxfp4)
            decodeMxfp4(bytes(), scales, static_cast<std::size_t>(index), count, out);
        else if (isGgmlBlockType(type))
            decodeGgmlBlocks(type, bytes(), static_cast<std::size_t>(origin + index), count, out);
        else if (type == ElementType::Fp8Blocks)
            decodeFp8Blocks(bytes(), blockScales, storedCols,
                            static_cast<std::size_t>(origin + index), count, out);
        else
            widen(type, element(index), count, out);
    }
    // The address of element `index` of a byte-addressable view (strides count elements).
    const void* element(std::ptrdiff_t index) const {
        return bytes() + index * static_cast<std::ptrdiff_t>(elementBytes(type));
    }
    MatrixView columns(int first, int count) const {
        MatrixView v = from(first * colStride);
        v.cols = count;
        return v;
    }
    MatrixView rowRange(int first, int count) const {
        MatrixView v = from(first * rowStride);
        v.rows = count;
        return v;
    }
    MatrixView transposed() const {
        return {data, cols,   rows,   colStride,   rowStride,
                type, scales, origin, blockScales, storedCols};
    }

  private:
    const std::uint8_t* bytes() const { return static_cast<const std::uint8_t*>(data); }
    // This view with element `index` as its first.
    MatrixView from(std::ptrdiff_t index) const {
        MatrixView v = *this;
        if (const BlockFormat f = blockFormat(type); f.elements > 0) {
            const std::ptrdiff_t at = origin + index,
                                 size = static_cast<std::ptrdiff_t>(f.elements);
            v.data = bytes() + at / size * static_cast<std::ptrdiff_t>(f.bytes);
            v.origin = at % size;
        } else if (type == ElementType::Fp8Blocks) {
            v.origin = origin + index;
        } else if (type != ElementType::Mxfp4) {
            v.data = element(index);
        } else {
            if (index % static_cast<std::ptrdiff_t>(kMxfp4BlockElements) != 0)
                throw Error("internal error: an MXFP4 view split inside a block");
            v.data = bytes() + index / 2;
            v.scales = scales + index / static_cast<std::ptrdiff_t>(kMxfp4BlockElements);
        }
        return v;
    }
};

struct VectorView {
    const float* data = nullptr;
    int size = 0;

    bool empty() const { return data == nullptr; }
    float operator[](int i) const { return data[i]; }
    VectorView slice(int first, int count) const { return {data + first, count}; }
};

}  // namespace qkv
