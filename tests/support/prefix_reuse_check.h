#pragma once
// The prefix-reuse check, on any backend: a text edited at its end, in its middle and as a whole
// goes through one ReusingForward, and each result is compared with a whole forward of the same
// request (q, k, v, every captured score and probability, and the logits).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/model/prefix_reuse.h"

namespace qkv::test {

// One edit of the text and how many of its first tokens a causal model keeps.
struct PrefixEdit {
    std::string what;
    std::vector<int> ids;
    int reused;  // for a causal model; a bidirectional one keeps none
};

// Seven edits of a random text of `tokens` ids below `vocab` (at least 8 tokens): the text,
// typing at the end (a token appended, then the last one changed, then two appended), a token
// changed in the middle, the last one deleted, and a whole new text.
std::vector<PrefixEdit> prefixEdits(int tokens, int vocab, unsigned seed);

// The largest difference between two results relative to the reference's largest magnitude
// (per matrix, plus one so tiny matrices compare absolutely); infinite for a shape mismatch.
double worstRelativeDifference(const ForwardResult& reused, const ForwardResult& whole);

// Runs the edits under `request`'s configuration, capture and logits on `pass` and checks each:
// the tokens kept (none for a bidirectional model) and the difference to a whole forward within
// `tolerance`. Returns the largest difference seen.
double checkPrefixReuse(const ForwardPass& pass, ForwardRequest request,
                        const std::vector<PrefixEdit>& edits, double tolerance);

}  // namespace qkv::test
