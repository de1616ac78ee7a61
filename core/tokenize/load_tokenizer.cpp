#include <nlohmann/json.hpp>
#include <system_error>

#include "core/tokenize/bert_tokenizer.h"
#include "core/tokenize/gpt2_tokenizer.h"
#include "core/tokenize/json_bpe_tokenizer.h"
#include "core/tokenize/json_file.h"
#include "core/tokenize/llama_post_processor.h"
#include "core/tokenize/sentencepiece_tokenizer.h"
#include "core/tokenize/tokenizer.h"
#include "core/tokenize/vocab_merges_layout.h"
#include "core/util/error.h"

namespace qkv {

std::unique_ptr<Tokenizer> loadTokenizer(const std::filesystem::path& modelDir,
                                         const TokenizerHints& hints) {
    const auto has = [&](const char* name) {
        std::error_code ec;
        return std::filesystem::is_regular_file(modelDir / name, ec);
    };
    if (has("spiece.model")) return SentencePieceTokenizer::t5(modelDir);
    if (has("source.spm") && has("vocab.json")) return SentencePieceTokenizer::marian(modelDir);
    if (has("vocab.json") && has("merges.txt")) {
        if (auto layout = vocabMergesLayout(modelDir, hints))  // RoBERTa, Qwen2, GPT-2 with a BOS
            return std::make_unique<JsonBpeTokenizer>(*layout, (modelDir / "vocab.json").string());
        return std::make_unique<Gpt2Tokenizer>(modelDir / "vocab.json", modelDir / "merges.txt");
    }
    if (has("vocab.txt"))
        return std::make_unique<BertTokenizer>(modelDir / "vocab.txt",
                                               modelDir / "tokenizer_config.json");
    if (has("tokenizer.json")) {
        nlohmann::json doc = json::readFile(modelDir / "tokenizer.json");
        applyLlamaPostProcessor(doc, modelDir);
        return std::make_unique<JsonBpeTokenizer>(doc, (modelDir / "tokenizer.json").string());
    }
    throw Error(
        modelDir.string() +
        ": no tokenizer files (vocab.json+merges.txt, vocab.txt, tokenizer.json, spiece.model or "
        "source.spm+vocab.json)");
}

}  // namespace qkv
