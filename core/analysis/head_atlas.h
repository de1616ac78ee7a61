#pragma once
// The head atlas's tally: every head's per-sequence scores (head_detectors.h) over a corpus (its
// documents, cut into sequences of the atlas's context) as a sum and a count per head and score,
// and per head and score its best examples.
//
// Sums are added in a fixed grouping, so that an atlas computed in parts equals the one computed
// at once to the last bit: the documents fall into blocks of kAtlasBlock (by index in the
// corpus); a block's sequences add up in its own sum, in order, and each finished block's sum
// joins the atlas's in one addition, in block order. Counts and examples are exact under any
// grouping (the examples' order is total).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/head_detectors.h"
#include "core/model/attention_trace.h"

namespace qkv {

constexpr std::int64_t kAtlasBlock = 32;  // documents
constexpr int kAtlasDefaultTop = 5;       // examples kept per head and score

// A sequence of a document: where it is (the document's index in the corpus, its first token's
// index in the document) and what it is.
struct AtlasSequence {
    std::int64_t document = 0, first = 0;
    std::vector<int> ids;
    // Each token's text as the document has it (a special token's vocabulary piece): what an
    // example shows.
    std::vector<std::string> pieces;
};

// One of a head's best sequences for a score: its value there, and the query row where it peaks
// (-1 for a score of the whole matrix).
struct AtlasExample {
    double value = 0;
    std::int64_t document = 0, first = 0;
    int query = -1;
};
// The examples' order: larger values first; of equal values the earlier document, sequence, row.
bool rankedBefore(const AtlasExample& a, const AtlasExample& b);

struct ScoreTally {
    double sum = 0;  // the finished blocks'
    std::int64_t count = 0;
    double blockSum = 0;  // the open block's
    std::int64_t blockCount = 0;
    std::vector<AtlasExample> top;  // best first, at most the atlas's top count

    // The mean over the sequences that gave the head this score; nullopt where none did.
    std::optional<double> mean() const;
};

class HeadAtlas {
  public:
    // heads[l]: layer l's heads (0 for a layer without heads). Its scores are the kHeadScores,
    // then "change_<c>" for each configuration c compared with the learned one; `top` examples
    // are kept per head and score.
    explicit HeadAtlas(std::vector<int> heads, std::vector<std::string> configurations = {},
                       int top = kAtlasDefaultTop);

    // One sequence's forward: the scores of every head whose map the learned trace holds (its
    // raw scores where captured), and per configuration (`changed`, the atlas's order) how far
    // its trace moves the head's rows. Throws qkv::Error for traces of another shape.
    void addSequence(const AtlasSequence& sequence, const AttentionTrace& learned,
                     const std::vector<const AttentionTrace*>& changed = {});
    // Ends the open block: its sums join the finished blocks' in one addition each.
    void closeBlock();
    // The atlas of the documents after this one's, computed apart from the start of a block:
    // at most one finished block (its sums join as closeBlock's would) and then its open block,
    // which becomes this one's. This atlas's open block must be empty. Throws qkv::Error for an
    // atlas of other heads or scores.
    void append(const HeadAtlas& next);

    int layers() const { return static_cast<int>(m_heads.size()); }
    int heads(int layer) const { return m_heads.at(layer); }
    const std::vector<int>& headCounts() const { return m_heads; }
    const std::vector<std::string>& configurations() const { return m_configurations; }
    const std::vector<std::string>& scores() const { return m_scores; }
    int scoreIndex(const std::string& name) const;  // -1 for none of its scores
    int topCount() const { return m_top; }
    std::int64_t sequences() const { return m_sequences; }
    bool blockIsEmpty() const;

    const ScoreTally& tally(int layer, int head, int score) const;
    std::optional<double> mean(int layer, int head, HeadScore score) const {
        return tally(layer, head, static_cast<int>(score)).mean();
    }
    // The sequences the examples name (and only those), by (document, first token).
    const std::map<std::pair<std::int64_t, std::int64_t>, AtlasSequence>& exampleSequences() const {
        return m_exampleSequences;
    }

    // What an atlas file saved (atlas_file.h).
    void restoreTally(int layer, int head, int score, ScoreTally tally);
    void restoreSequence(AtlasSequence sequence);
    void restoreSequenceCount(std::int64_t sequences) { m_sequences = sequences; }

  private:
    bool offer(ScoreTally& tally, const AtlasExample& example) const;
    void dropUnnamedSequences();

    std::vector<int> m_heads;
    std::vector<std::string> m_configurations;
    std::vector<std::string> m_scores;
    int m_top;
    std::vector<std::vector<std::vector<ScoreTally>>> m_tallies;  // [layer][head][score]
    std::map<std::pair<std::int64_t, std::int64_t>, AtlasSequence> m_exampleSequences;
    std::int64_t m_sequences = 0;
};

}  // namespace qkv
