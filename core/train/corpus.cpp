#include "core/train/corpus.h"

#include <algorithm>

#include "core/train/story_grammar.h"
#include "core/util/error.h"
#include "core/util/text_file.h"

namespace qkv::train {
namespace {

constexpr int kTrainStories = 24000;
constexpr int kValidationStories = 400;
constexpr std::uint64_t kTrainSeed = 1;
constexpr std::uint64_t kValidationSeed = 2;
constexpr const char* kEndOfText = "<|endoftext|>";

}  // namespace

TextCorpus builtinCorpus() {
    return {kBuiltinCorpus, generateStories(kTrainSeed, kTrainStories), builtinValidationStories()};
}

std::vector<std::string> builtinValidationStories() {
    return generateStories(kValidationSeed, kValidationStories);
}

std::vector<std::string> fileDocuments(const std::filesystem::path& file) {
    const std::string text = readTextFile(file, "corpus");
    std::vector<std::string> documents = splitText(text, true);
    if (documents.size() < 20) documents = splitText(text, false);
    return documents;
}

TextCorpus fileCorpus(const std::filesystem::path& file) {
    std::vector<std::string> documents = fileDocuments(file);
    if (documents.size() < 2)
        throw Error(file.string() +
                    ": a corpus needs at least two lines or paragraphs of text "
                    "(one to train on, one to validate)");
    const size_t validation = std::max<size_t>(1, documents.size() / 20);
    TextCorpus corpus{file.string(), {}, {}};
    corpus.validation.assign(documents.end() - validation, documents.end());
    documents.resize(documents.size() - validation);
    corpus.train = std::move(documents);
    return corpus;
}

int endOfTextId(const Tokenizer& tokenizer) {
    const auto tokens = tokenizer.encode(kEndOfText);
    if (tokens.size() != 1 || tokens[0].piece != kEndOfText)
        throw Error("the tokenizer has no \"<|endoftext|>\" token to separate documents");
    return tokens[0].id;
}

std::vector<int> tokenStream(const Tokenizer& tokenizer,
                             const std::vector<std::string>& documents) {
    const int separator = endOfTextId(tokenizer);
    // Encoding documents in batches joined by the separator lets the tokenizer's word cache
    // serve many documents at once; the separator is matched as its special token.
    constexpr size_t kBatch = 256;
    std::vector<int> ids;
    for (size_t first = 0; first < documents.size(); first += kBatch) {
        std::string text;
        for (size_t i = first; i < std::min(documents.size(), first + kBatch); ++i)
            text += kEndOfText + documents[i];
        for (const Token& token : tokenizer.encode(text)) ids.push_back(token.id);
    }
    if (!ids.empty() && ids[0] != separator)
        throw Error("internal error: the token stream does not start with <|endoftext|>");
    return ids;
}

std::vector<Window> evaluationWindows(std::size_t streamLength, int context) {
    std::vector<Window> windows;
    for (std::size_t begin = 0; begin + 1 < streamLength; begin += context)
        windows.push_back(
            {begin, static_cast<int>(std::min<std::size_t>(context, streamLength - 1 - begin))});
    return windows;
}

}  // namespace qkv::train
