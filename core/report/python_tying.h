#pragma once
// The part of a Python check script (python_snippet.h) that applies a W configuration to a model
// loaded by transformers: copies of the loaded projections' weights and biases in every attention
// block, in the family's own layout, or the refusal of what copying cannot reproduce.
#include <ostream>
#include <string>
#include <vector>

#include "core/model/architecture.h"
#include "core/model/hf_attention_layout.h"
#include "core/model/w_configuration.h"

namespace qkv {

// Why `config` cannot be reproduced by copying weights in transformers, one sentence each; empty
// when it can.
std::vector<std::string> untranslatableParts(const WConfiguration& config, const Architecture& a);

// Comment lines naming the reasons, then `raise SystemExit(...)`.
void writeRefusal(std::ostream& out, const WConfiguration& config,
                  const std::vector<std::string>& reasons);

// The copies under torch.no_grad(), for a `model` variable already loaded; a comment alone for
// the learned slots.
void writeTying(std::ostream& out, const WConfiguration& config, const Architecture& a,
                const HfAttentionLayout& layout);

}  // namespace qkv
