#include "core/train/corpus.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/train/story_grammar.h"
#include "core/util/error.h"

namespace qkv::train {
namespace {

constexpr int kTrainStories = 24000;
constexpr int kValidationStories = 400;
constexpr std::uint64_t kTrainSeed = 1;
constexpr std::uint64_t kValidationSeed = 2;
constexpr const char* kEndOfText = "<|endoftext|>";

std::string readText(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error(file.string() + ": cannot read the corpus file");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> split(const std::string& text, bool paragraphs) {
    std::vector<std::string> documents;
    std::string current;
    std::istringstream lines(text);
    std::string line;
    auto flush = [&] {
        if (current.find_first_not_of(" \t\r\n") != std::string::npos) documents.push_back(current);
        current.clear();
    };
    while (std::getline(lines, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const bool blank = line.find_first_not_of(" \t") == std::string::npos;
        if (!paragraphs || blank) {
            if (!paragraphs) current = line;
            flush();
        } else {
            current += current.empty() ? line : "\n" + line;
        }
    }
    flush();
    return documents;
}

}  // namespace

TextCorpus builtinCorpus() {
    return {kBuiltinCorpus, generateStories(kTrainSeed, kTrainStories), builtinValidationStories()};
}

std::vector<std::string> builtinValidationStories() {
    return generateStories(kValidationSeed, kValidationStories);
}

std::vector<std::string> fileDocuments(const std::filesystem::path& file) {
    const std::string text = readText(file);
    std::vector<std::string> documents = split(text, true);
    if (documents.size() < 20) documents = split(text, false);
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
