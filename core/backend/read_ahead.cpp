#include "core/backend/read_ahead.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include "core/format/ggml_blocks.h"
#include "core/format/mxfp4.h"

namespace qkv {
namespace {

// Asks the kernel to read [begin, begin + bytes) ahead, whole pages.
void readAhead(const void* begin, std::size_t bytes) {
    static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto first = reinterpret_cast<std::uintptr_t>(begin) / page * page;
    const auto end = reinterpret_cast<std::uintptr_t>(begin) + bytes;
    ::madvise(reinterpret_cast<void*>(first), end - first, MADV_WILLNEED);
}

}  // namespace

void readAheadStorage(const MatrixView& v) {
    if (v.empty() || v.rows == 0 || v.cols == 0) return;
    const auto last =
        static_cast<std::size_t>((v.rows - 1) * v.rowStride + (v.cols - 1) * v.colStride);
    if (const BlockFormat f = blockFormat(v.type); f.elements > 0) {
        readAhead(v.data,
                  (static_cast<std::size_t>(v.origin) + last) / f.elements * f.bytes + f.bytes);
    } else if (v.type == ElementType::Fp8Blocks) {  // one byte an element (the scales are read)
        readAhead(static_cast<const std::uint8_t*>(v.data) + v.origin, last + 1);
    } else if (v.type == ElementType::Mxfp4) {
        readAhead(v.data, last / 2 + 1);
        readAhead(v.scales, last / kMxfp4BlockElements + 1);
    } else {
        readAhead(v.data, (last + 1) * elementBytes(v.type));
    }
}

}  // namespace qkv
