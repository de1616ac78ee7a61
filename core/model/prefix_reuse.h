#pragma once
// Forwards for a text being edited. A causal model's row i depends on tokens 0..i only, so when
// a request's ids share a prefix with the previous request's (typing or deleting at the end, an
// edit in the middle), the keys, values, queries and captured rows of that prefix are kept and
// only the positions after it are computed. The result is the full forward's, to float32
// rounding (tests compare every shared causal model and configuration). Bidirectional stacks
// (BERT family, encoder-decoders) and requests whose configuration, capture, logits or token
// types differ from the kept ones are computed whole. The kept queries, keys and values stay on
// the backend (a GPU's memory): use and destroy the object where the backend is used.
#include <cstddef>
#include <memory>
#include <vector>

#include "core/model/forward.h"

namespace qkv {

class ReusingForward {
  public:
    // `pass` must outlive this object.
    explicit ReusingForward(const ForwardPass& pass);
    ~ReusingForward();

    // The same result as pass.run(request); throws what it throws. The result is shared with
    // the kept state (never modified after it is returned).
    std::shared_ptr<const ForwardResult> run(const ForwardRequest& request);

    // Tokens of the last run() that were reused rather than computed (0: computed whole).
    int reusedTokens() const { return m_reused; }
    // Forgets the kept forwards (the next run computes whole).
    void clear();

    struct Kept;

  private:
    const ForwardPass& m_pass;
    // One per configuration recently run (the Compare view alternates two), newest first.
    std::vector<std::unique_ptr<Kept>> m_kept;
    int m_reused = 0;
};

}  // namespace qkv
