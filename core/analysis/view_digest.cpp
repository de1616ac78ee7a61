#include "core/analysis/view_digest.h"

#include <string>
#include <vector>

#include "core/format/element_type.h"
#include "core/format/ggml_blocks.h"

namespace qkv {

void hashView(Sha256& digest, const MatrixView& v) {
    const std::string shape = std::string(elementTypeName(v.type)) + " " + std::to_string(v.rows) +
                              "x" + std::to_string(v.cols) + ";";
    digest.update(shape);
    const std::size_t elements = static_cast<std::size_t>(v.rows) * v.cols;
    if (const BlockFormat f = blockFormat(v.type); f.elements > 0) {
        // A GGUF tensor viewed whole: its blocks, as stored (transposed: a Linear weight, the
        // untied output head, whose every element at() would decode a whole block).
        const bool rowMajor = v.colStride == 1 && v.rowStride == v.cols;
        const bool colMajor = v.rowStride == 1 && v.colStride == v.rows;
        if (v.origin == 0 && (rowMajor || colMajor)) {
            if (!rowMajor) digest.update("T");
            digest.update(v.data, elements / f.elements * f.bytes);
            return;
        }
        std::vector<float> column(v.rows);  // otherwise its values, a column at a time
        for (int c = 0; c < v.cols; ++c) {
            for (int r = 0; r < v.rows; ++r) column[r] = v.at(r, c);
            digest.update(column.data(), column.size() * sizeof(float));
        }
        return;
    }
    const std::size_t bytes = elements * elementBytes(v.type);
    const bool bytesAsStored = isByteAddressable(v.type);
    if (bytesAsStored && v.colStride == 1 && v.rowStride == v.cols) {
        digest.update(v.data, bytes);  // the stored bytes, as they are
    } else if (bytesAsStored && v.rowStride == 1 && v.colStride == v.rows) {
        digest.update("T");  // the transpose's bytes (a Linear weight): the same information
        digest.update(v.data, bytes);
    } else {
        for (int r = 0; r < v.rows; ++r)
            for (int c = 0; c < v.cols; ++c) {
                const float f = v.at(r, c);
                digest.update(&f, sizeof f);
            }
    }
}

}  // namespace qkv
