#pragma once
// tokenizer.json normalizers, applied to the text before pre-tokenization, keeping alignment to
// the original input. Supported "type"s: Sequence, Prepend, Replace (String or Regex pattern),
// NFC, NFD, NFKC, NFKD, Lowercase, Strip. Others (Precompiled, BertNormalizer, StripAccents, ...)
// are refused with a qkv::Error naming the file and the type.
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/tokenize/normalized_text.h"

namespace qkv {

class Normalizer {
  public:
    virtual ~Normalizer() = default;
    virtual void normalize(NormalizedText& text) const = 0;
};

// `where` names the value for errors, e.g. "<file>: normalizer". A null spec gives nullptr.
std::unique_ptr<Normalizer> parseNormalizer(const nlohmann::json& spec, const std::string& where);

}  // namespace qkv
