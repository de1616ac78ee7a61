#pragma once
// A weight view's identity for digests: its dtype, shape and elements (the bytes as stored where
// they are, GGUF blocks whole), so that another checkpoint of the same layout hashes apart.
#include "core/backend/matrix_view.h"
#include "core/util/sha256.h"

namespace qkv {

// Feeds the view's dtype, shape and elements, in row-major order, into `digest`.
void hashView(Sha256& digest, const MatrixView& v);

}  // namespace qkv
