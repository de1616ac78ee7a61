#include "core/tokenize/bpe_merges.h"

#include <queue>

#include "core/util/error.h"

namespace qkv {

BpeMerges::BpeMerges(const std::vector<std::pair<std::string, std::string>>& pairs,
                     const Vocabulary& vocab, std::string_view continuingPrefix,
                     std::string_view context) {
    m_merges.reserve(pairs.size());
    for (std::size_t rank = 0; rank < pairs.size(); ++rank) {
        // Named references, not a structured binding: clang 14 cannot capture those in lambdas.
        const std::string& left = pairs[rank].first;
        const std::string& right = pairs[rank].second;
        const auto fail = [&](const std::string& problem) {
            throw Error(std::string(context) + ": merge " + std::to_string(rank + 1) + " '" + left +
                        " " + right + "' " + problem);
        };
        const int leftId = vocab.find(left);
        if (leftId == Vocabulary::kMissing)
            fail("names '" + left + "', which is not in the vocabulary");
        const int rightId = vocab.find(right);
        if (rightId == Vocabulary::kMissing)
            fail("names '" + right + "', which is not in the vocabulary");
        const std::string_view tail =
            !continuingPrefix.empty() && std::string_view(right).starts_with(continuingPrefix)
                ? std::string_view(right).substr(continuingPrefix.size())
                : std::string_view(right);
        const std::string merged = left + std::string(tail);
        const int mergedId = vocab.find(merged);
        if (mergedId == Vocabulary::kMissing)
            fail("makes '" + merged + "', which is not in the vocabulary");
        m_merges.insert_or_assign(key(leftId, rightId), Merge{static_cast<int>(rank), mergedId});
    }
}

const BpeMerges::Merge* BpeMerges::find(int left, int right) const {
    if (left < 0 || right < 0) return nullptr;
    const auto it = m_merges.find(key(left, right));
    return it == m_merges.end() ? nullptr : &it->second;
}

void BpeMerges::apply(std::vector<PieceSpan>& symbols) const {
    const std::size_t n = symbols.size();
    if (n < 2 || m_merges.empty()) return;
    constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::vector<std::size_t> prev(n), next(n);
    std::vector<bool> alive(n, true);
    for (std::size_t i = 0; i < n; ++i) {
        prev[i] = i == 0 ? kNone : i - 1;
        next[i] = i + 1 == n ? kNone : i + 1;
    }
    struct Candidate {
        int rank;
        std::size_t pos;
        int merged;
        bool operator>(const Candidate& other) const {
            return rank != other.rank ? rank > other.rank : pos > other.pos;
        }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
    for (std::size_t i = 0; i + 1 < n; ++i)
        if (const Merge* m = find(symbols[i].id, symbols[i + 1].id))
            queue.push({m->rank, i, m->merged});

    while (!queue.empty()) {
        const Candidate top = queue.top();
        queue.pop();
        const std::size_t pos = top.pos;
        if (!alive[pos] || next[pos] == kNone) continue;
        const std::size_t right = next[pos];
        // Stale entries: the pair at `pos` changed since this candidate was queued.
        const Merge* current = find(symbols[pos].id, symbols[right].id);
        if (!current || current->merged != top.merged) continue;

        symbols[pos].id = top.merged;
        symbols[pos].end = symbols[right].end;
        alive[right] = false;
        next[pos] = next[right];
        if (next[pos] != kNone) prev[next[pos]] = pos;

        if (prev[pos] != kNone)
            if (const Merge* m = find(symbols[prev[pos]].id, symbols[pos].id))
                queue.push({m->rank, prev[pos], m->merged});
        if (next[pos] != kNone)
            if (const Merge* m = find(symbols[pos].id, symbols[next[pos]].id))
                queue.push({m->rank, pos, m->merged});
    }
    std::size_t kept = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (alive[i]) symbols[kept++] = symbols[i];
    symbols.resize(kept);
}

}  // namespace qkv
