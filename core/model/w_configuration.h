#pragma once
// W configurations: which learned projection fills each of the Q, K, V slots in every layer
// (weights and biases together), what is done to the score matrix, and the two options.
//
//   learned      Q, K, V as in the checkpoint
//   shared-qk    K := Q (Reformer); with GQA every query head uses its own W_Q as key
//   tied-kv      V := K
//   single-w     K := Q and V := Q
//   sym-scores   S := (S + S^T) / 2 on the scaled scores before masking
//   skew-scores  S := (S - S^T) / 2
//   custom       "q=Q,k=Q,v=V": each slot takes the Q, K or V weights of the same head
//
// Two more names, for the trained variants of the same names (not in the preset menu):
//   scale-outside       learned slots with scaleOutside
//   shared-qk-reformer  K := Q with maskSelf and normalizeKeys, as Reformer ran shared-QK
#include <string>

#include "core/backend/backend.h"

namespace qkv {

enum class Projection { Query, Key, Value };

struct WConfiguration {
    Projection querySource = Projection::Query;
    Projection keySource = Projection::Key;
    Projection valueSource = Projection::Value;
    ScoreTransform transform = ScoreTransform::None;
    bool scaleOutside = false;   // 1/sqrt(d_k) after the softmax: rows no longer sum to one
    bool maskSelf = false;       // tokens may not attend to themselves (Reformer)
    bool normalizeKeys = false;  // each head's key k := k / ||k|| before q·k (Reformer)

    // A preset name or a custom "q=?,k=?,v=?" assignment; throws qkv::Error listing the choices.
    static WConfiguration parse(const std::string& text);
    // The preset name when the slots and transform match one, else "q=Q,k=K,v=Q" style;
    // "shared-qk-reformer" for exactly its slots, maskSelf and normalizeKeys.
    std::string name() const;
    // The projection that fills `slot`.
    Projection sourceOf(Projection slot) const {
        return slot == Projection::Query ? querySource
               : slot == Projection::Key ? keySource
                                         : valueSource;
    }
    bool operator==(const WConfiguration&) const = default;
};

// The preset names, in menu order (scale-outside and shared-qk-reformer are not among them: the
// menu's checkboxes set scaleOutside and maskSelf over whichever preset is chosen).
const std::vector<std::string>& attentionPresetNames();

}  // namespace qkv
