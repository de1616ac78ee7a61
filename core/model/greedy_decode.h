#pragma once
// What an encoder-decoder model writes for a source sentence: greedy decoding, each step the
// decoder's most probable next token (never its start / padding token), until the end token.
#include <atomic>
#include <vector>

#include "core/model/forward.h"

namespace qkv {

// The tokens after the decoder start token, without the closing end token; at most
// `maxTokens`. Throws qkv::Error for a model that is not an encoder-decoder, qkv::Cancelled
// when `cancel` is raised.
std::vector<int> greedyDecode(const ForwardPass& pass, const std::vector<int>& sourceIds,
                              int maxTokens, const std::atomic<bool>* cancel = nullptr);

}  // namespace qkv
