#pragma once
// Training text: the built-in story corpus (story_grammar.h) or a UTF-8 text file, as
// documents split into a training and a held-out validation part, and their token streams.
//
// Built-in: 24000 training stories from seed 1 and 400 validation stories from seed 2 (fixed,
// independent of the training seed, so every model and `evaluate` see the same data).
// File: documents are the file's paragraphs (separated by blank lines), or its lines when it
// has fewer than 20 paragraphs; the last 5% of the documents (at least one) are validation.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "core/tokenize/tokenizer.h"

namespace qkv::train {

struct TextCorpus {
    std::string description;  // "builtin" or the file's path
    std::vector<std::string> train;
    std::vector<std::string> validation;
};

constexpr const char* kBuiltinCorpus = "builtin";

TextCorpus builtinCorpus();
std::vector<std::string> builtinValidationStories();
// Throws qkv::Error when the file cannot be read, is not UTF-8 or holds fewer than two documents.
TextCorpus fileCorpus(const std::filesystem::path& file);
// All of a file's documents (what `evaluate --corpus FILE` scores).
std::vector<std::string> fileDocuments(const std::filesystem::path& file);

// The id of "<|endoftext|>" in `tokenizer`; throws qkv::Error when it has none.
int endOfTextId(const Tokenizer& tokenizer);
// The documents' token ids, each document preceded by "<|endoftext|>" (GPT-2's separator).
std::vector<int> tokenStream(const Tokenizer& tokenizer, const std::vector<std::string>& documents);

// Next-token prediction over a stream in windows of at most `context` inputs: window w predicts
// stream[begin + 1 .. begin + length] from stream[begin .. begin + length - 1]; windows start
// every `context` tokens, so every token after the first is predicted exactly once.
struct Window {
    std::size_t begin = 0;
    int length = 0;
};
std::vector<Window> evaluationWindows(std::size_t streamLength, int context);

}  // namespace qkv::train
