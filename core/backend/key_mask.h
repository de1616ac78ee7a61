#pragma once
// Which keys a query may see: none after it when causal, and with a sliding window none at or
// before query - window. The model's own masks (the W configuration's mask-self is an attention
// option); the backends apply them, the views grey what they hide.
#include <algorithm>

namespace qkv {

struct KeyMask {
    bool causal = true;
    int window = 0;  // keys query - window < key; 0: all

    int firstVisible(int query) const { return window > 0 ? std::max(0, query - window + 1) : 0; }
    bool hides(int query, int key) const {
        return (causal && key > query) || key < firstVisible(query);
    }
};

}  // namespace qkv
