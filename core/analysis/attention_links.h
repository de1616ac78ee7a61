#pragma once
// The lines of bertviz's head view: query i to key j, weighted by A_ij. A long sentence has n²
// of them; a view draws the strongest few and says how many it left out.
#include <cstddef>
#include <vector>

#include "core/model/attention_trace.h"

namespace qkv {

struct AttentionLink {
    int query = 0;
    int key = 0;
    float weight = 0;  // A_ij
};

struct AttentionLinks {
    std::vector<AttentionLink> links;  // strongest first
    std::size_t omitted = 0;           // links above `minWeight` that did not make the limit
};

// The links with |A_ij| > minWeight, the `limit` strongest of them by |A_ij| (ties: lower i, then
// j); an implicit map's negative entries are links too.
AttentionLinks strongestLinks(const RowMatrixXf& attention, std::size_t limit, float minWeight);

}  // namespace qkv
