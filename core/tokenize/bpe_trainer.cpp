#include "core/tokenize/bpe_trainer.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/tokenize/byte_level.h"
#include "core/tokenize/regex.h"
#include "core/tokenize/utf8.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace qkv {
namespace {

struct Word {
    std::vector<int> symbols;
    std::int64_t count = 0;
};

using Pair = std::pair<int, int>;

// Pair counts over all words, and which words hold each pair.
class PairIndex {
  public:
    void add(const Word& word, int index, int sign) {
        for (size_t i = 0; i + 1 < word.symbols.size(); ++i) {
            const Pair pair{word.symbols[i], word.symbols[i + 1]};
            m_counts[pair] += sign * word.count;
            if (sign > 0) m_words[pair].insert(index);
        }
    }
    std::set<int> takeWords(const Pair& pair) {
        std::set<int> words = std::move(m_words[pair]);
        m_words.erase(pair);
        return words;
    }
    const std::map<Pair, std::int64_t>& counts() const { return m_counts; }
    void prune() {
        std::erase_if(m_counts, [](const auto& entry) { return entry.second <= 0; });
    }

  private:
    std::map<Pair, std::int64_t> m_counts;
    std::map<Pair, std::set<int>> m_words;
};

void mergeInWord(Word& word, const Pair& pair, int merged) {
    std::vector<int> out;
    out.reserve(word.symbols.size());
    for (size_t i = 0; i < word.symbols.size(); ++i) {
        if (i + 1 < word.symbols.size() && word.symbols[i] == pair.first &&
            word.symbols[i + 1] == pair.second) {
            out.push_back(merged);
            ++i;
        } else {
            out.push_back(word.symbols[i]);
        }
    }
    word.symbols = std::move(out);
}

}  // namespace

BpeTrainer::BpeTrainer()
    : m_pattern(std::make_unique<Regex>(byte_level::kGpt2Pattern, "GPT-2 pre-tokenizer")) {}

BpeTrainer::~BpeTrainer() = default;

void BpeTrainer::addText(std::string_view text) {
    utf8::validate(text, "the training text");
    for (const auto& [begin, end] : m_pattern->findAll(text))
        ++m_counts[std::string(text.substr(begin, end - begin))];
}

BpeVocabulary BpeTrainer::train(int vocabSize,
                                const std::vector<std::string>& specialTokens) const {
    const int reserved = 256 + static_cast<int>(specialTokens.size());
    if (vocabSize < reserved)
        throw Error("a byte-level vocabulary needs at least " + std::to_string(reserved) +
                    " entries (256 bytes and the special tokens), not " +
                    std::to_string(vocabSize));
    BpeVocabulary vocab;
    std::map<std::string, int> ids;
    for (int b = 0; b < 256; ++b) {
        vocab.pieces.push_back(byte_level::charOf(static_cast<unsigned char>(b)));
        ids[vocab.pieces.back()] = b;
    }

    // Words in a fixed (sorted) order, so indices and results do not depend on hashing.
    std::vector<std::pair<std::string, std::int64_t>> sorted(m_counts.begin(), m_counts.end());
    std::sort(sorted.begin(), sorted.end());
    std::vector<Word> words;
    for (const auto& [bytes, count] : sorted) {
        Word w;
        w.count = count;
        for (unsigned char c : bytes) w.symbols.push_back(c);
        words.push_back(std::move(w));
    }
    PairIndex index;
    for (size_t i = 0; i < words.size(); ++i) index.add(words[i], static_cast<int>(i), +1);

    const int pieceBudget = vocabSize - static_cast<int>(specialTokens.size());
    while (static_cast<int>(vocab.pieces.size()) < pieceBudget) {
        const std::pair<const Pair, std::int64_t>* best = nullptr;
        for (const auto& entry : index.counts()) {
            if (entry.second < 2) continue;
            if (!best || entry.second > best->second ||
                (entry.second == best->second &&
                 std::tie(vocab.pieces[entry.first.first], vocab.pieces[entry.first.second]) <
                     std::tie(vocab.pieces[best->first.first], vocab.pieces[best->first.second])))
                best = &entry;
        }
        if (!best) break;
        const Pair pair = best->first;
        const std::string piece = vocab.pieces[pair.first] + vocab.pieces[pair.second];
        vocab.merges.emplace_back(vocab.pieces[pair.first], vocab.pieces[pair.second]);
        auto [it, inserted] = ids.try_emplace(piece, static_cast<int>(vocab.pieces.size()));
        if (inserted) vocab.pieces.push_back(piece);
        for (int w : index.takeWords(pair)) {
            index.add(words[w], w, -1);
            mergeInWord(words[w], pair, it->second);
            index.add(words[w], w, +1);
        }
        index.prune();
    }
    for (const auto& special : specialTokens) {
        if (ids.count(special)) throw Error("special token '" + special + "' is already a piece");
        ids[special] = static_cast<int>(vocab.pieces.size());
        vocab.pieces.push_back(special);
    }
    return vocab;
}

void writeGpt2TokenizerFiles(const BpeVocabulary& vocabulary, const std::filesystem::path& folder) {
    nlohmann::ordered_json vocab = nlohmann::ordered_json::object();
    for (size_t id = 0; id < vocabulary.pieces.size(); ++id) vocab[vocabulary.pieces[id]] = id;
    writeFileAtomically(folder / "vocab.json", vocab.dump(-1, ' ', false) + "\n");
    std::string merges = "#version: 0.2\n";
    for (const auto& [left, right] : vocabulary.merges) merges += left + " " + right + "\n";
    writeFileAtomically(folder / "merges.txt", merges);
}

}  // namespace qkv
