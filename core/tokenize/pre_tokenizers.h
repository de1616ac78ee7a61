#pragma once
// tokenizer.json pre-tokenizers: they cut normalized text into the pieces the model tokenizes
// one by one. Supported "type"s: Sequence, ByteLevel (add_prefix_space, use_regex), Metaspace
// (replacement, prepend_scheme or the older add_prefix_space, split), Split (String or Regex
// pattern, behavior, invert), Whitespace, WhitespaceSplit, Digits, Punctuation. Others
// (BertPreTokenizer, UnicodeScripts, CharDelimiterSplit, ...) are refused with a qkv::Error
// naming the file and the type.
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/tokenize/normalized_text.h"

namespace qkv {

class PreTokenizer {
  public:
    virtual ~PreTokenizer() = default;
    // Splits (and may rewrite) every piece; pieces that end up empty are dropped.
    virtual void split(std::vector<NormalizedText>& pieces) const = 0;
};

// A piece with SentencePiece's word boundary "▁" (U+2581, the Metaspace replacement) shown as
// the space it stands for: "▁Once" -> " Once".
std::string metaspaceAsSpaces(std::string_view piece);

// `where` names the value for errors, e.g. "<file>: pre_tokenizer". A null spec gives nullptr.
std::unique_ptr<PreTokenizer> parsePreTokenizer(const nlohmann::json& spec,
                                                const std::string& where);

}  // namespace qkv
