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

// A Gated DeltaNet or Mamba-2 layer has no scores before a softmax to transform, scale or mask, and
// its value heads take the key heads' projections only where the widths agree.
bool scoresUntouched(const WConfiguration& config) {
    return config.transform == ScoreTransform::None && !config.scaleOutside && !config.maskSelf &&
           !config.normalizeKeys;
}

// The first layer without a softmax whose configurations are narrower than attention's.
const LayerKind* firstImplicitLayer(const Architecture& c, const WConfiguration& config,
                                    bool (*applies)(const LayerKind&, const WConfiguration&)) {
    for (int l = 0; l < c.layers; ++l)
        if ((c.isImplicit(l) || c.mixerOf(l) == Mixer::ShortConv) &&
            !applies(c.layerKinds[l], config))
            return &c.layerKinds[l];
    if (c.besideMamba && !applies(*c.besideMamba, config)) return &*c.besideMamba;
    return nullptr;
}

// A short convolution's B, C and x are all d_model wide: any of them fills any slot.
bool implicitApplies(const LayerKind& kind, const WConfiguration& config) {
    if (kind.mixer == Mixer::ShortConv) return scoresUntouched(config);
    const bool valuesFit = config.valueSource == Projection::Value || kind.valueDim == kind.headDim;
    return scoresUntouched(config) && config.querySource != Projection::Value &&
           config.keySource != Projection::Value && valuesFit;
}

// A layer that attends over another layer's keys and values has only W_Q of its own: its query
// slot takes nothing else. The configuration applies where the keys and values are computed.
bool sharedKeyValuesApply(const Architecture& c, const WConfiguration& config) {
    return !c.sharesKeyValues() || config.querySource == Projection::Query;
}

int firstSharingLayer(const Architecture& c) {
    for (int l = 0; l < c.layers; ++l)
        if (c.kindOf(l).keyValueSource >= 0) return l;
    return -1;
}

}  // namespace

bool configurationApplies(const Architecture& c, const WConfiguration& config) {
    if (!sharedKeyValuesApply(c, config)) return false;
    if (c.bilinearHeads) return ownSlots(config) && !config.normalizeKeys;
    if (firstImplicitLayer(c, config, implicitApplies)) return false;
    return !c.latent.present() || latentApplies(config);
}

std::string configurationRefusal(const Architecture& c, const WConfiguration& config) {
    if (configurationApplies(c, config)) return {};
    if (!sharedKeyValuesApply(c, config)) {
        const int l = firstSharingLayer(c);
        return "configuration " + config.name() + " is not defined here: layer " +
               std::to_string(l) + " attends over layer " +
               std::to_string(c.kindOf(l).keyValueSource) +
               "'s keys and values and has only W_Q of its own, so its query slot cannot take "
               "W_K or W_V; configurations apply in the layers that compute keys and values "
               "(learned, shared-qk, tied-kv, single-w and the score options do)";
    }
    if (c.bilinearHeads)
        return ("configuration " + config.name() +
                " is not defined for a full-bilinear model: each head scores with one " +
                std::to_string(c.dModel) + " x " + std::to_string(c.dModel) +
                " matrix W_h, so there is no W_Q or W_K to share or tie, and its values (" +
                std::to_string(c.valueWidth()) +
                " wide) have no projection of W_h's shape to trade places with; learned, "
                "sym-scores and skew-scores are, with scale outside or the self mask");
    if (const LayerKind* kind = firstImplicitLayer(c, config, implicitApplies)) {
        const std::string layers = kind->mixer == Mixer::Mamba2      ? "Mamba-2 layers"
                                   : kind->mixer == Mixer::ShortConv ? "short-convolution layers"
                                                                     : "Gated DeltaNet layers";
        if (!scoresUntouched(config))
            return "configuration " + config.name() + " is not defined for " + layers +
                   ": they have no score matrix before "
                   "a softmax to transform, scale, mask or normalise; learned, shared-qk and "
                   "(where value and key heads are equally wide) tied-kv and single-w are";
        return "configuration " + config.name() + " is not defined for " + layers +
               ": their value heads (" + std::to_string(kind->valueDim) +
               " wide, one per head) cannot fill a query or key " + "slot, nor key heads (" +
               std::to_string(kind->headDim) +
               " wide, shared by value heads) a value slot of another width; learned, shared-qk "
               "and q=K are" +
               (kind->valueDim == kind->headDim ? std::string(", and tied-kv and single-w")
                                                : std::string());
    }
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
