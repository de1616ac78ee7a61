#pragma once
// Asks the kernel to read a weight's file pages ahead of the product that needs them (the
// forward's prefetch of the next layer's weights).
#include "core/backend/matrix_view.h"

namespace qkv {

// The bytes a weight view's elements are stored in, from its first element to its last; a
// range that is not a file's pages is left as it is.
void readAheadStorage(const MatrixView& v);

}  // namespace qkv
