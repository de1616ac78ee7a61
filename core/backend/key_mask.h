#pragma once
// Which keys a query may see: none after it when causal, and with a sliding window none at or
// before query - window; a chunked layer (Llama 4) only the keys of the query's own chunk of
// `chunk` positions; a bidirectional local layer (ModernBERT) sees the keys within `reach` of the
// query on either side. The model's own masks (the W configuration's mask-self is an
// attention option); the backends apply them, the views grey what they hide.
#include <algorithm>

namespace qkv {

struct KeyMask {
    bool causal = true;
    int window = 0;  // keys query - window < key; 0: all
    int reach = 0;   // keys with |query - key| <= reach; 0: all
    int chunk = 0;   // keys with key / chunk == query / chunk; 0: all

    int firstVisible(int query) const {
        int first = window > 0 ? std::max(0, query - window + 1) : 0;
        if (chunk > 0) first = std::max(first, query - query % chunk);
        return reach > 0 ? std::max(first, query - reach) : first;
    }
    // The last key a query sees among `keys`.
    int lastVisible(int query, int keys) const {
        const int last = causal ? std::min(query, keys - 1) : keys - 1;
        return reach > 0 ? std::min(last, query + reach) : last;
    }
    bool hides(int query, int key) const {
        return (causal && key > query) || key < firstVisible(query) ||
               (reach > 0 && key > query + reach);
    }
};

}  // namespace qkv
