#pragma once
// The head atlas's tally: every head's per-sequence scores (head_detectors.h) over a corpus (its
// documents, cut into sequences of the atlas's context), as a sum and a count per head and
// score, so that atlases of parts of a corpus merge into the atlas of the whole: the counts
// exactly, the sums to rounding (a merge adds partial sums in another grouping; a run resumed
// from its file adds each sequence in the same order, to the last bit).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/attention_trace.h"

namespace qkv {

enum class AtlasScore {
    PreviousToken,
    DuplicateToken,
    Induction,
    FirstToken,
    Self,
    Entropy,
    Distance,
    ScoreSymmetry,
    Directionality,
};
constexpr int kAtlasScores = 9;
// "previous_token", "duplicate_token", "induction", "first_token", "self", "entropy",
// "distance", "score_symmetry", "directionality": the names the command line and the atlas
// file use.
const char* atlasScoreName(AtlasScore score);

struct HeadTally {
    std::array<double, kAtlasScores> sum{};
    std::array<std::int64_t, kAtlasScores> count{};
};

class HeadAtlas {
  public:
    // heads[l]: layer l's heads (0 for a layer without heads).
    explicit HeadAtlas(std::vector<int> heads);

    // One sequence's forward: the scores of every head whose map the trace holds (its raw scores
    // where captured) on the sequence's ids. Throws qkv::Error for a trace of another shape.
    void addSequence(const AttentionTrace& trace, const std::vector<int>& ids);
    // Another atlas of the same heads, its sequences after this one's.
    void merge(const HeadAtlas& other);

    // The tallies [layer][head] and sequence count an atlas file saved (atlas_file.h).
    void restore(std::vector<std::vector<HeadTally>> tallies, std::int64_t sequences);

    // The mean over the sequences that gave the head this score; nullopt where none did.
    std::optional<double> mean(int layer, int head, AtlasScore score) const;
    const HeadTally& tally(int layer, int head) const;
    std::int64_t sequences() const { return m_sequences; }
    int layers() const { return static_cast<int>(m_heads.size()); }
    int heads(int layer) const { return m_heads.at(layer); }

  private:
    std::vector<int> m_heads;
    std::vector<std::vector<HeadTally>> m_tallies;  // [layer][head]
    std::int64_t m_sequences = 0;
};

}  // namespace qkv
