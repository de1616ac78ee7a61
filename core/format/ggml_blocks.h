#pragma once
// The block formats of llama.cpp's quantised tensors (GGUF), decoded as ggml decodes them: each
// block holds a run of consecutive elements of one row (32 or, for the K- and IQ4_XS types, 256)
// with its scales; an element's value is the float32 arithmetic ggml's dequantisation does
// (scale products first, then the code), so the values decoded here are the model's weights bit
// for bit.
#include <cstddef>
#include <cstdint>

#include "core/format/element_type.h"

namespace qkv {

struct BlockFormat {
    std::size_t elements = 0;  // per block
    std::size_t bytes = 0;     // per block
};

// The format of a block type (Q4_0 ... IQ4_XS); {0, 0} for a byte-addressable or MXFP4 type.
BlockFormat blockFormat(ElementType type);
inline bool isGgmlBlockType(ElementType type) { return blockFormat(type).elements > 0; }

// Decodes `count` consecutive elements of a block array from element `first` on into `out`.
void decodeGgmlBlocks(ElementType type, const std::uint8_t* blocks, std::size_t first,
                      std::size_t count, float* out);

}  // namespace qkv
