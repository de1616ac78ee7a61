#pragma once
// The directed-relations probe: pairs of a context and two continuations, the right one and its
// foil, which says the same with the relation's direction (or the word's sense) reversed:
//   give      "Tom gave Lily the kite, and Lily thanked Tom." -> " Lily has the kite now."
//             against " Tom has the kite now."
//   chase     "Tom chased Lily." -> " Lily ran away from Tom." / " Tom ran away from Lily."
//   compare   "Tom is bigger than Lily, so" -> " Lily is smaller than Tom." / " Tom is smaller
//             than Lily."
//   movie     "The movie was a box office bomb." -> " Nobody went to see the movie." / " The
//             theatre burned down." (and the bomb that hit the movie theatre, the other way)
//   network   "Tom trained a neural network." -> " The network learned to read." / " Tom made
//             new friends." (and the social network, the other way)
// A model gets a pair right when the right continuation is the more probable one (the sum of
// its tokens' log-probabilities given the context). The built-in corpus (story_grammar.h) tells
// these relations the right way round; the probe's names are drawn from a seed of its own.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/tokenize/tokenizer.h"

namespace qkv::train {

struct RelationPair {
    std::string kind;
    std::string context, right, foil;
};

// The built-in probe: the same pairs on every platform.
std::vector<RelationPair> relationPairs();

// A pair as token ids: "<|endoftext|>" + context, and the two continuations' ids.
struct TokenizedRelation {
    std::string kind;
    std::vector<int> context, right, foil;
};
std::vector<TokenizedRelation> tokenizeRelations(const Tokenizer& tokenizer,
                                                 const std::vector<RelationPair>& pairs);

struct RelationScore {
    double accuracy = 0;  // fraction of pairs whose right continuation is the more probable
    int pairs = 0;
    std::map<std::string, double> accuracyByKind;
};

// logProbabilities(ids) gives log p(ids[t] | ids[0..t-1]) for t = 1 .. ids.size() - 1.
using TokenLogProbabilities = std::function<std::vector<double>(const std::vector<int>& ids)>;

RelationScore scoreRelations(const std::vector<TokenizedRelation>& pairs,
                             const TokenLogProbabilities& logProbabilities);

// Log-softmax of logits rows (rows x vocab, row-major) picked at `targets`: row t scores
// targets[t]. The shared step of every TokenLogProbabilities.
template <typename T>
std::vector<double> pickLogProbabilities(const T* logits, int vocab,
                                         const std::vector<int>& targets);

}  // namespace qkv::train
