#include "core/model/applicable_configurations.h"

#include <string>

#include "core/util/error.h"

namespace qkv {
namespace {

bool ownSlots(const WConfiguration& config) {
    return config.querySource == Projection::Query && config.keySource == Projection::Key &&
           config.valueSource == Projection::Value;
}

bool latentApplies(const WConfiguration& config) {
    return config.valueSource == Projection::Value && config.querySource != Projection::Value &&
           config.keySource != Projection::Value;
}

}  // namespace

bool configurationApplies(const Architecture& c, const WConfiguration& config) {
    if (c.bilinearHeads) return ownSlots(config) && !config.normalizeKeys;
    return !c.latent.present() || latentApplies(config);
}

std::string configurationRefusal(const Architecture& c, const WConfiguration& config) {
    if (configurationApplies(c, config)) return {};
    if (c.bilinearHeads)
        return ("configuration " + config.name() +
                " is not defined for a full-bilinear model: each head scores with one " +
                std::to_string(c.dModel) + " x " + std::to_string(c.dModel) +
                " matrix W_h, so there is no W_Q or W_K to share or tie, and its values (" +
                std::to_string(c.valueWidth()) +
                " wide) have no projection of W_h's shape to trade places with; learned, "
                "sym-scores and skew-scores are, with scale outside or the self mask");
    return "configuration " + config.name() + " is not defined for multi-head latent " +
           "attention: its values (" + std::to_string(c.valueWidth()) +
           " wide per head, from the shared latent) have no projection of a query's or "
           "key's shape (" +
           std::to_string(c.headDim) +
           " wide) to trade places with; learned, shared-qk, sym-scores and skew-scores are";
}

void requireConfigurationApplies(const Architecture& c, const WConfiguration& config) {
    if (const std::string refusal = configurationRefusal(c, config); !refusal.empty())
        throw Error(refusal);
}

}  // namespace qkv
