#include "core/analysis/head_atlas.h"

#include "core/analysis/head_detectors.h"
#include "core/util/error.h"

namespace qkv {

const char* atlasScoreName(AtlasScore score) {
    switch (score) {
        case AtlasScore::PreviousToken:
            return "previous_token";
        case AtlasScore::DuplicateToken:
            return "duplicate_token";
        case AtlasScore::Induction:
            return "induction";
        case AtlasScore::FirstToken:
            return "first_token";
        case AtlasScore::Self:
            return "self";
        case AtlasScore::Entropy:
            return "entropy";
        case AtlasScore::Distance:
            return "distance";
        case AtlasScore::ScoreSymmetry:
            return "score_symmetry";
        case AtlasScore::Directionality:
            return "directionality";
    }
    return "?";
}

HeadAtlas::HeadAtlas(std::vector<int> heads) : m_heads(std::move(heads)) {
    for (int count : m_heads) m_tallies.emplace_back(count);
}

void HeadAtlas::addSequence(const AttentionTrace& trace, const std::vector<int>& ids) {
    if (trace.layerCount() != layers() || trace.tokens() != static_cast<int>(ids.size()))
        throw Error("internal error: a trace of " + std::to_string(trace.layerCount()) +
                    " layers over " + std::to_string(trace.tokens()) + " tokens for an atlas of " +
                    std::to_string(layers()) + " layers and " + std::to_string(ids.size()) +
                    " tokens");
    for (int l = 0; l < layers(); ++l)
        for (int h = 0; h < heads(l) && h < trace.headCount(l); ++h) {
            if (!trace.hasProbabilities(l, h)) continue;
            // An implicit map has no scores before a softmax: its form is the map itself.
            static const RowMatrixXf kNoScores;
            const RowMatrixXf* form = trace.isImplicit(l)     ? &trace.probabilities(l, h)
                                      : trace.hasScores(l, h) ? &trace.scores(l, h)
                                                              : &kNoScores;
            const HeadSentenceScores s = scoreHeadOnSentence(trace.probabilities(l, h), *form, ids);
            HeadTally& t = m_tallies[l][h];
            auto add = [&](AtlasScore score, std::optional<double> value) {
                if (!value) return;
                t.sum[static_cast<int>(score)] += *value;
                ++t.count[static_cast<int>(score)];
            };
            add(AtlasScore::PreviousToken, s.previousToken);
            add(AtlasScore::DuplicateToken, s.duplicateToken);
            add(AtlasScore::Induction, s.induction);
            add(AtlasScore::FirstToken, s.firstToken);
            add(AtlasScore::Self, s.self);
            add(AtlasScore::Entropy, s.entropy);
            add(AtlasScore::Distance, s.distance);
            add(AtlasScore::ScoreSymmetry, s.scoreSymmetry);
            add(AtlasScore::Directionality, s.directionality);
        }
    ++m_sequences;
}

void HeadAtlas::merge(const HeadAtlas& other) {
    if (other.m_heads != m_heads)
        throw Error("internal error: atlases of different heads do not merge");
    for (int l = 0; l < layers(); ++l)
        for (int h = 0; h < heads(l); ++h)
            for (int s = 0; s < kAtlasScores; ++s) {
                m_tallies[l][h].sum[s] += other.m_tallies[l][h].sum[s];
                m_tallies[l][h].count[s] += other.m_tallies[l][h].count[s];
            }
    m_sequences += other.m_sequences;
}

void HeadAtlas::restore(std::vector<std::vector<HeadTally>> tallies, std::int64_t sequences) {
    if (tallies.size() != m_tallies.size())
        throw Error("internal error: an atlas's tallies of another number of layers");
    for (std::size_t l = 0; l < tallies.size(); ++l)
        if (tallies[l].size() != m_tallies[l].size())
            throw Error("internal error: an atlas's tallies of another number of heads");
    m_tallies = std::move(tallies);
    m_sequences = sequences;
}

const HeadTally& HeadAtlas::tally(int layer, int head) const {
    return m_tallies.at(layer).at(head);
}

std::optional<double> HeadAtlas::mean(int layer, int head, AtlasScore score) const {
    const HeadTally& t = tally(layer, head);
    const int s = static_cast<int>(score);
    if (t.count[s] == 0) return std::nullopt;
    return t.sum[s] / static_cast<double>(t.count[s]);
}

}  // namespace qkv
