#pragma once
// Helpers for a family's GgufLayout::undo: a GGUF tensor's values as float32, and a tensor whose
// values the family recomputed (kept alive by the checkpoint's GgufDerived).
#include <cstdint>
#include <deque>
#include <vector>

#include "core/io/safetensors.h"

namespace qkv {

// Bytes the checkpoint keeps for tensors derived from the file's.
using GgufDerived = std::deque<std::vector<std::uint8_t>>;

// A tensor's values as float32, decoded from its stored type.
std::vector<float> ggufFloats(const TensorInfo& t);

// `t` now holds `values` as float32 of `shape`, stored in `derived`.
void replaceWithFloats(TensorInfo& t, const std::vector<float>& values,
                       std::vector<std::int64_t> shape, GgufDerived& derived);

// A Mamba-2 or Gated DeltaNet A_log from the converter's stored A = −exp(A_log), as a vector.
void logOfNegated(TensorInfo& t, GgufDerived& derived);

// w from a norm weight stored as the multiplier 1 + w (Gemma's, Qwen3.5's), whose binder adds the
// one back.
void lessOne(TensorInfo& t, GgufDerived& derived);

// The same values as a vector (llama.cpp keeps some per-head vectors as [1, n] or [g, n/g]).
void flatten(TensorInfo& t);

}  // namespace qkv
