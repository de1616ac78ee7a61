#include "core/model/prefix_reuse.h"

#include <algorithm>

namespace qkv {

// A recent forward: its request (what a later one must share to reuse it) and result.
struct ReusingForward::Kept {
    ForwardRequest request;
    std::shared_ptr<const ForwardResult> result;
    KeptVectors vectors;  // its q, k, v on the backend

    // Whether `r` asks for the same computation over possibly other ids (token types, which
    // rule out reuse, are ForwardPass::canKeepPrefix's to check).
    bool sameComputation(const ForwardRequest& r) const {
        const CaptureSelection& a = request.capture;
        const CaptureSelection& b = r.capture;
        return request.config == r.config && a.layer == b.layer && a.head == b.head &&
               a.scores == b.scores && a.probabilities == b.probabilities &&
               a.allVectors == b.allVectors && request.logits == r.logits;
    }
};

namespace {

// Recent configurations kept: the Compare view runs the chosen one and the learned one.
constexpr size_t kKeptComputations = 2;

int commonPrefix(const std::vector<int>& a, const std::vector<int>& b) {
    const auto mismatch = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
    return static_cast<int>(mismatch.first - a.begin());
}

}  // namespace

ReusingForward::ReusingForward(const ForwardPass& pass) : m_pass(pass) {}
ReusingForward::~ReusingForward() = default;

std::shared_ptr<const ForwardResult> ReusingForward::run(const ForwardRequest& request) {
    m_reused = 0;
    auto found = std::find_if(m_kept.begin(), m_kept.end(),
                              [&](const auto& kept) { return kept->sameComputation(request); });
    Kept* earlier = found != m_kept.end() ? found->get() : nullptr;
    // At least the last token is computed: it gives the logits (and a shortened text's rows).
    int reused = 0;
    // Dynamic and longrope scalings rotate every position by the input's length: an input on the
    // other side of their threshold computes whole.
    const Architecture& c = m_pass.model().architecture();
    if (earlier && m_pass.canKeepPrefix(request) &&
        c.rotationsAgree(static_cast<int>(earlier->request.ids.size()),
                         static_cast<int>(request.ids.size())))
        reused = std::min(commonPrefix(earlier->request.ids, request.ids),
                          static_cast<int>(request.ids.size()) - 1);
    KeptVectors vectors;
    KeptVectors* keep = m_pass.canKeepPrefix(request) ? &vectors : nullptr;
    auto result = std::make_shared<const ForwardResult>(
        reused > 0 ? m_pass.runAfter(request, *earlier->result, earlier->vectors, reused, keep)
                   : m_pass.run(request, keep));
    m_reused = reused;
    std::unique_ptr<Kept> kept = std::make_unique<Kept>();
    if (earlier) {  // replaced by this result (moved to the front below)
        kept = std::move(*found);
        m_kept.erase(found);
    }
    kept->request = request;
    kept->request.cancel = nullptr;
    kept->request.progress = nullptr;
    kept->result = result;
    kept->vectors = std::move(vectors);
    m_kept.insert(m_kept.begin(), std::move(kept));
    if (m_kept.size() > kKeptComputations) m_kept.pop_back();
    return result;
}

void ReusingForward::clear() { m_kept.clear(); }

}  // namespace qkv
