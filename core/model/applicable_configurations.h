#pragma once
// Which W configurations are defined for a model's attention. Latent attention's slots take
// projections of their own shape only (values the values; queries and keys queries or keys).
// A full-bilinear head (Architecture::bilinearHeads) has no W_Q or W_K at all, only its W_h:
// its slots keep their own projections, and only what acts on the scores (sym-scores,
// skew-scores, scale outside, self mask) applies. Every configuration is defined for the other
// families.
#include <string>

#include "core/model/architecture.h"
#include "core/model/w_configuration.h"

namespace qkv {

bool configurationApplies(const Architecture& c, const WConfiguration& config);
// Why the configuration is not defined ("configuration tied-kv is not defined for ..."); empty
// when it applies.
std::string configurationRefusal(const Architecture& c, const WConfiguration& config);
// Throws the refusal unless configurationApplies.
void requireConfigurationApplies(const Architecture& c, const WConfiguration& config);

}  // namespace qkv
