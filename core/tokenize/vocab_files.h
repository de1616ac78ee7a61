#pragma once
// Readers for the plain vocabulary files, validated (any problem throws qkv::Error naming the
// file and the line or token):
//   vocab.json  GPT-2: a JSON object {"<byte-level piece>": id, ...}; ids unique, 0..N-1.
//   merges.txt  GPT-2: an optional first line "#version: ..." then one merge "a b" per line,
//               highest priority first; a final newline is optional. (Hugging Face's tokenizers
//               skip "#version" lines the same way; the old Python GPT2Tokenizer dropped the
//               first line whatever it held.)
//   vocab.txt   BERT: one piece per line, the id is the line number from 0. A piece listed twice
//               keeps its later id for lookups, as in transformers.
// Text files must be UTF-8; lines may end in "\n" or "\r\n".
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/tokenize/vocabulary.h"

namespace qkv {

Vocabulary readVocabJson(const std::filesystem::path& path);
std::vector<std::pair<std::string, std::string>> readMergesTxt(const std::filesystem::path& path);
Vocabulary readVocabTxt(const std::filesystem::path& path);

// The {"piece": id} object of vocab.json or of tokenizer.json's model.vocab, with the same
// checks; `where` names it in errors.
Vocabulary parseVocabObject(const nlohmann::json& object, const std::string& where);
// One merge "a b": exactly two non-empty pieces separated by one space; nullopt otherwise.
std::optional<std::pair<std::string, std::string>> parseMergeLine(std::string_view line);

}  // namespace qkv
