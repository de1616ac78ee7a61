#include "core/analysis/head_atlas.h"

#include <algorithm>
#include <set>

#include "core/util/error.h"

namespace qkv {

bool rankedBefore(const AtlasExample& a, const AtlasExample& b) {
    if (a.value != b.value) return a.value > b.value;
    if (a.document != b.document) return a.document < b.document;
    if (a.first != b.first) return a.first < b.first;
    return a.query < b.query;
}

std::optional<double> ScoreTally::mean() const {
    const std::int64_t n = count + blockCount;
    if (n == 0) return std::nullopt;
    return (sum + blockSum) / static_cast<double>(n);
}

HeadAtlas::HeadAtlas(std::vector<int> heads, std::vector<std::string> configurations, int top)
    : m_heads(std::move(heads)), m_configurations(std::move(configurations)), m_top(top) {
    if (m_top < 1) throw Error("an atlas keeps at least one example per head and score");
    for (int s = 0; s < kHeadScores; ++s)
        m_scores.emplace_back(headScoreName(static_cast<HeadScore>(s)));
    for (const std::string& c : m_configurations) m_scores.push_back("change_" + c);
    for (int count : m_heads)
        m_tallies.emplace_back(std::max(count, 0), std::vector<ScoreTally>(m_scores.size()));
}

int HeadAtlas::scoreIndex(const std::string& name) const {
    const auto it = std::find(m_scores.begin(), m_scores.end(), name);
    return it == m_scores.end() ? -1 : static_cast<int>(it - m_scores.begin());
}

bool HeadAtlas::offer(ScoreTally& tally, const AtlasExample& example) const {
    if (static_cast<int>(tally.top.size()) >= m_top && !rankedBefore(example, tally.top.back()))
        return false;
    if (static_cast<int>(tally.top.size()) >= m_top) tally.top.pop_back();
    tally.top.insert(std::upper_bound(tally.top.begin(), tally.top.end(), example, rankedBefore),
                     example);
    return true;
}

void HeadAtlas::addSequence(const AtlasSequence& sequence, const AttentionTrace& learned,
                            const std::vector<const AttentionTrace*>& changed) {
    const int tokens = static_cast<int>(sequence.ids.size());
    if (changed.size() != m_configurations.size())
        throw Error("internal error: " + std::to_string(changed.size()) +
                    " changed traces for an atlas of " + std::to_string(m_configurations.size()) +
                    " configurations");
    for (const AttentionTrace* trace : changed)
        if (trace->layerCount() != learned.layerCount() || trace->tokens() != learned.tokens())
            throw Error("internal error: a configuration's trace of another shape");
    if (learned.layerCount() != layers() || learned.tokens() != tokens)
        throw Error("internal error: a trace of " + std::to_string(learned.layerCount()) +
                    " layers over " + std::to_string(learned.tokens()) +
                    " tokens for an atlas of " + std::to_string(layers()) + " layers and " +
                    std::to_string(tokens) + " tokens");
    const auto example = [&](double value, int query) {
        return AtlasExample{value, sequence.document, sequence.first, query};
    };
    bool named = false;
    for (int l = 0; l < layers(); ++l)
        for (int h = 0; h < heads(l) && h < learned.headCount(l); ++h) {
            if (!learned.hasProbabilities(l, h)) continue;
            // An implicit map has no scores before a softmax: its form is the map itself.
            static const RowMatrixXf kNoScores;
            const RowMatrixXf& map = learned.probabilities(l, h);
            const RowMatrixXf& form = learned.isImplicit(l)     ? map
                                      : learned.hasScores(l, h) ? learned.scores(l, h)
                                                                : kNoScores;
            const HeadSentenceScores s = scoreHeadOnSentence(map, form, sequence.ids);
            std::vector<ScoreTally>& tallies = m_tallies[l][h];
            for (int k = 0; k < kHeadScores; ++k) {
                const auto value = s.value(static_cast<HeadScore>(k));
                if (!value) continue;
                tallies[k].blockSum += *value;
                ++tallies[k].blockCount;
                if (k >= kRowScores)
                    named |= offer(tallies[k], example(*value, -1));
                else if (s.peaks[k].query >= 0)
                    named |= offer(tallies[k], example(s.peaks[k].value, s.peaks[k].query));
            }
            for (std::size_t c = 0; c < changed.size(); ++c) {
                if (!changed[c]->hasProbabilities(l, h)) continue;
                const RowChange change = rowChange(map, changed[c]->probabilities(l, h));
                ScoreTally& t = tallies[kHeadScores + c];
                t.blockSum += change.mean;
                ++t.blockCount;
                if (change.peak.query >= 0)
                    named |= offer(t, example(change.peak.value, change.peak.query));
            }
        }
    ++m_sequences;
    if (named) {
        m_exampleSequences[{sequence.document, sequence.first}] = sequence;
        dropUnnamedSequences();
    }
}

void HeadAtlas::dropUnnamedSequences() {
    std::set<std::pair<std::int64_t, std::int64_t>> named;
    for (const auto& layer : m_tallies)
        for (const auto& head : layer)
            for (const ScoreTally& t : head)
                for (const AtlasExample& e : t.top) named.insert({e.document, e.first});
    std::erase_if(m_exampleSequences, [&](const auto& kept) { return !named.count(kept.first); });
}

bool HeadAtlas::blockIsEmpty() const {
    for (const auto& layer : m_tallies)
        for (const auto& head : layer)
            for (const ScoreTally& t : head)
                if (t.blockCount != 0) return false;
    return true;
}

void HeadAtlas::closeBlock() {
    for (auto& layer : m_tallies)
        for (auto& head : layer)
            for (ScoreTally& t : head) {
                t.sum += t.blockSum;
                t.count += t.blockCount;
                t.blockSum = 0;
                t.blockCount = 0;
            }
}

void HeadAtlas::append(const HeadAtlas& next) {
    if (next.m_heads != m_heads || next.m_scores != m_scores)
        throw Error("internal error: atlases of other heads or scores do not join");
    if (!blockIsEmpty())
        throw Error("internal error: an atlas joins another only where its block ends");
    for (int l = 0; l < layers(); ++l)
        for (int h = 0; h < heads(l); ++h)
            for (std::size_t k = 0; k < m_scores.size(); ++k) {
                ScoreTally& t = m_tallies[l][h][k];
                const ScoreTally& n = next.m_tallies[l][h][k];
                t.sum += n.sum;
                t.count += n.count;
                t.blockSum = n.blockSum;
                t.blockCount = n.blockCount;
                for (const AtlasExample& e : n.top) offer(t, e);
            }
    for (const auto& [key, sequence] : next.m_exampleSequences)
        m_exampleSequences.emplace(key, sequence);
    dropUnnamedSequences();
    m_sequences += next.m_sequences;
}

const ScoreTally& HeadAtlas::tally(int layer, int head, int score) const {
    return m_tallies.at(layer).at(head).at(score);
}

void HeadAtlas::restoreTally(int layer, int head, int score, ScoreTally tally) {
    m_tallies.at(layer).at(head).at(score) = std::move(tally);
}

void HeadAtlas::restoreSequence(AtlasSequence sequence) {
    const std::pair<std::int64_t, std::int64_t> key{sequence.document, sequence.first};
    m_exampleSequences[key] = std::move(sequence);
}

}  // namespace qkv
