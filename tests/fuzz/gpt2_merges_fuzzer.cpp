// GPT-2 merges.txt: the file reader and the merge table built against a fixed vocabulary (the
// byte-level alphabet plus a few merged pieces), then the merge loop over sample texts. This is
// Gpt2Tokenizer's merges path without re-reading the vocabulary and re-compiling the
// pre-tokenizer per input.
#include <nlohmann/json.hpp>

#include "core/tokenize/bpe_merges.h"
#include "core/tokenize/byte_level.h"
#include "core/tokenize/vocab_files.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/tokenizer_samples.h"

using namespace qkv;

namespace {

Vocabulary fixedVocab() {
    nlohmann::json vocab = nlohmann::json::object();
    for (int b = 0; b < 256; ++b) vocab[byte_level::charOf(static_cast<unsigned char>(b))] = b;
    const char* merged[] = {"he", "\xC4\xA0t", "\xC4\xA0the",      "in",
                            "er", "an",        "\xC4\xA0w",        "or",
                            "ll", "llo",       "\xC4\xA0\xC4\xA0", "<|endoftext|>"};
    int id = 256;
    for (const char* piece : merged) vocab[piece] = id++;
    return fuzz::loadFixture([&] { return parseVocabObject(vocab, "vocab.json"); });
}

}  // namespace

QKV_FUZZ_TARGET(gpt2_merges) {
    static const Vocabulary vocab = fixedVocab();
    const auto path = fuzz::writeScratch("merges.txt", input);
    const BpeMerges merges(readMergesTxt(path), vocab, "", path.string());
    for (std::string_view text : fuzz::kSampleTexts) {
        std::vector<PieceSpan> symbols;
        for (std::size_t i = 0; i < text.size(); ++i)
            symbols.push_back(
                {vocab.find(byte_level::charOf(static_cast<unsigned char>(text[i]))), i, i + 1});
        merges.apply(symbols);
        std::size_t covered = 0;
        for (const PieceSpan& p : symbols) {
            FUZZ_CHECK(p.begin == covered && p.end > p.begin);
            FUZZ_CHECK(p.id >= 0 && vocab.piece(p.id) != nullptr);
            FUZZ_CHECK(byte_level::decode(*vocab.piece(p.id)) ==
                       std::string(text.substr(p.begin, p.end - p.begin)));
            covered = p.end;
        }
        FUZZ_CHECK(covered == text.size());
    }
}
