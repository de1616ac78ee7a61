#include "core/train/relation_probe.h"

#include <algorithm>
#include <cmath>

#include "core/train/corpus.h"
#include "core/train/random.h"
#include "core/util/error.h"

namespace qkv::train {
namespace {

constexpr std::uint64_t kProbeSeed = 3;
constexpr int kPairsPerKind = 80;

const std::vector<std::string> kNames{"Lily", "Mia", "Anna", "Sue", "Emma", "Lucy", "Kate",
                                      "Zoe",  "Tom", "Ben",  "Sam", "Max",  "Leo",  "Jack",
                                      "Tim",  "Dan", "Bob",  "Joe", "Rose", "Alice"};
const std::vector<std::string> kThings{"ball", "kite", "hat",  "book", "box", "toy",
                                       "car",  "drum", "boat", "doll", "cup", "bike"};
const std::vector<std::pair<std::string, std::string>> kComparatives{{"bigger", "smaller"},
                                                                     {"taller", "shorter"},
                                                                     {"faster", "slower"},
                                                                     {"older", "younger"},
                                                                     {"stronger", "weaker"}};

}  // namespace

std::vector<RelationPair> relationPairs() {
    Random random(kProbeSeed);
    std::vector<RelationPair> pairs;
    auto twoNames = [&] {
        const std::string a = random.pick(kNames);
        std::string b;
        do b = random.pick(kNames);
        while (b == a);
        return std::pair{a, b};
    };
    for (int i = 0; i < kPairsPerKind; ++i) {
        const auto [a, b] = twoNames();
        const std::string thing = random.pick(kThings);
        pairs.push_back(
            {"give", a + " gave " + b + " the " + thing + ", and " + b + " thanked " + a + ".",
             " " + b + " has the " + thing + " now.", " " + a + " has the " + thing + " now."});
    }
    for (int i = 0; i < kPairsPerKind; ++i) {
        const auto [a, b] = twoNames();
        pairs.push_back({"chase", a + " chased " + b + ".", " " + b + " ran away from " + a + ".",
                         " " + a + " ran away from " + b + "."});
    }
    for (int i = 0; i < kPairsPerKind; ++i) {
        const auto [a, b] = twoNames();
        const auto& [more, less] = random.pick(kComparatives);
        pairs.push_back({"compare", a + " is " + more + " than " + b + ", so",
                         " " + b + " is " + less + " than " + a + ".",
                         " " + a + " is " + less + " than " + b + "."});
    }
    const std::string flop = " Nobody went to see the movie.", fire = " The theatre burned down.";
    pairs.push_back({"movie", "The movie was a box office bomb.", flop, fire});
    pairs.push_back({"movie", "The bomb hit the movie theatre.", fire, flop});
    for (int i = 0; i < kPairsPerKind / 2; ++i) {
        const std::string a = random.pick(kNames);
        const std::string learns = " The network learned to read.";
        const std::string friends = " " + a + " made new friends.";
        pairs.push_back({"network", a + " trained a neural network.", learns, friends});
        pairs.push_back({"network", a + " joined a social network.", friends, learns});
    }
    return pairs;
}

std::vector<TokenizedRelation> tokenizeRelations(const Tokenizer& tokenizer,
                                                 const std::vector<RelationPair>& pairs) {
    const int separator = endOfTextId(tokenizer);
    auto ids = [&](const std::string& text) {
        std::vector<int> out;
        for (const Token& token : tokenizer.encode(text)) out.push_back(token.id);
        return out;
    };
    std::vector<TokenizedRelation> out;
    out.reserve(pairs.size());
    for (const RelationPair& pair : pairs) {
        TokenizedRelation t{pair.kind, ids(pair.context), ids(pair.right), ids(pair.foil)};
        t.context.insert(t.context.begin(), separator);
        out.push_back(std::move(t));
    }
    return out;
}

RelationScore scoreRelations(const std::vector<TokenizedRelation>& pairs,
                             const TokenLogProbabilities& logProbabilities) {
    auto continuationScore = [&](const std::vector<int>& context, const std::vector<int>& tail) {
        std::vector<int> ids = context;
        ids.insert(ids.end(), tail.begin(), tail.end());
        const std::vector<double> logp = logProbabilities(ids);
        double sum = 0.0;
        for (std::size_t t = context.size(); t < ids.size(); ++t) sum += logp[t - 1];
        return sum;
    };
    RelationScore score;
    std::map<std::string, std::pair<int, int>> byKind;  // right, total
    int right = 0;
    for (const TokenizedRelation& pair : pairs) {
        const bool correct = continuationScore(pair.context, pair.right) >
                             continuationScore(pair.context, pair.foil);
        right += correct;
        auto& [kindRight, kindTotal] = byKind[pair.kind];
        kindRight += correct;
        ++kindTotal;
    }
    score.pairs = static_cast<int>(pairs.size());
    score.accuracy = pairs.empty() ? 0.0 : static_cast<double>(right) / pairs.size();
    for (const auto& [kind, counts] : byKind)
        score.accuracyByKind[kind] = static_cast<double>(counts.first) / counts.second;
    return score;
}

template <typename T>
std::vector<double> pickLogProbabilities(const T* logits, int vocab,
                                         const std::vector<int>& targets) {
    std::vector<double> out(targets.size());
    for (std::size_t t = 0; t < targets.size(); ++t) {
        const T* row = logits + t * static_cast<std::size_t>(vocab);
        const double maxValue = *std::max_element(row, row + vocab);
        double sum = 0.0;
        for (int j = 0; j < vocab; ++j) sum += std::exp(static_cast<double>(row[j]) - maxValue);
        if (targets[t] < 0 || targets[t] >= vocab)
            throw Error("token id " + std::to_string(targets[t]) + " is outside the vocabulary");
        out[t] = static_cast<double>(row[targets[t]]) - maxValue - std::log(sum);
    }
    return out;
}

template std::vector<double> pickLogProbabilities<float>(const float*, int,
                                                         const std::vector<int>&);
template std::vector<double> pickLogProbabilities<double>(const double*, int,
                                                          const std::vector<int>&);

}  // namespace qkv::train
