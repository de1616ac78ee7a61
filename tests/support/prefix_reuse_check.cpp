#include "tests/support/prefix_reuse_check.h"

#include <cmath>
#include <random>

namespace qkv::test {

std::vector<PrefixEdit> prefixEdits(int tokens, int vocab, unsigned seed) {
    std::mt19937 engine(seed);
    std::uniform_int_distribution<int> id(0, vocab - 1);
    auto other = [&](int not_) {
        int v = id(engine);
        while (v == not_) v = id(engine);
        return v;
    };
    std::vector<int> text(tokens - 3);
    for (int& v : text) v = id(engine);
    std::vector<PrefixEdit> edits{{"the text", text, 0}};
    auto next = [&](std::string what, std::vector<int> ids, int reused) {
        edits.push_back({std::move(what), std::move(ids), reused});
    };
    std::vector<int> ids = text;
    ids.push_back(id(engine));
    next("a token typed at the end", ids, tokens - 3);
    ids.back() = other(ids.back());
    next("the last token changed", ids, tokens - 3);
    ids.push_back(id(engine));
    ids.push_back(id(engine));
    next("two tokens typed at the end", ids, tokens - 2);
    const int middle = tokens / 2;
    ids[middle] = other(ids[middle]);
    next("a token changed in the middle", ids, middle);
    ids.pop_back();
    next("the last token deleted", ids, tokens - 2);  // the last one left is recomputed
    std::vector<int> whole(ids.size());
    whole[0] = other(ids[0]);
    for (size_t i = 1; i < whole.size(); ++i) whole[i] = id(engine);
    next("a whole new text", whole, 0);
    return edits;
}

namespace {

double relative(const RowMatrixXf& a, const RowMatrixXf& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
    if (b.size() == 0) return 0.0;
    const double d = (a - b).cwiseAbs().maxCoeff() / (1.0 + b.cwiseAbs().maxCoeff());
    return std::isnan(d) ? INFINITY : d;
}

}  // namespace

double worstRelativeDifference(const ForwardResult& reused, const ForwardResult& whole) {
    const AttentionTrace& a = reused.trace;
    const AttentionTrace& b = whole.trace;
    if (a.tokens() != b.tokens() || a.layerCount() != b.layerCount()) return INFINITY;
    double worst = relative(reused.logits, whole.logits);
    for (int l = 0; l < b.layerCount(); ++l) {
        const LayerTrace& x = a.layers()[l];
        const LayerTrace& y = b.layers()[l];
        worst = std::max({worst, relative(x.query, y.query), relative(x.key, y.key),
                          relative(x.value, y.value)});
        if (x.scores.size() != y.scores.size()) return INFINITY;
        for (size_t h = 0; h < y.scores.size(); ++h)
            worst = std::max({worst, relative(x.scores[h], y.scores[h]),
                              relative(x.probabilities[h], y.probabilities[h])});
    }
    return worst;
}

double checkPrefixReuse(const ForwardPass& pass, ForwardRequest request,
                        const std::vector<PrefixEdit>& edits, double tolerance) {
    ReusingForward reusing(pass);
    const bool causal = pass.canKeepPrefix(request);
    const Architecture& c = pass.model().architecture();
    double worst = 0.0;
    for (const PrefixEdit& edit : edits) {
        SCOPED_TRACE(edit.what);
        // A length-dependent rotation (dynamic, longrope) across its threshold keeps nothing.
        const bool sameRotation =
            request.ids.empty() || c.rotationsAgree(static_cast<int>(request.ids.size()),
                                                    static_cast<int>(edit.ids.size()));
        request.ids = edit.ids;
        const auto reused = reusing.run(request);
        EXPECT_EQ(reusing.reusedTokens(), causal && sameRotation ? edit.reused : 0);
        const double difference = worstRelativeDifference(*reused, pass.run(request));
        EXPECT_LE(difference, tolerance);
        worst = std::max(worst, difference);
    }
    return worst;
}

}  // namespace qkv::test
