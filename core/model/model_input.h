#pragma once
// A sentence as a model reads it: its tokens from text (the model's tokenizer) or from ids given
// directly, within the model's context. The one path from text to ids of the app, the command
// line and the Python module, which differ only in what they do with too many tokens.
#include <optional>
#include <string>
#include <vector>

#include "core/model/model.h"

namespace qkv {

struct ModelInput {
    std::vector<Token> tokens;                 // ids given directly have their pieces, no spans
    std::optional<std::size_t> truncatedFrom;  // the count before cutting to the context
};

// What to do with more tokens than the model's context: keep the first ones (and say so in
// truncatedFrom), or refuse with an error that names both counts.
enum class OverContext { Truncate, Refuse };

// From text, with the model's tokenizer: throws qkv::Error for empty text or a model without a
// tokenizer.
ModelInput inputFromText(const Model& model, const std::string& text, OverContext over);
// From ids given directly.
ModelInput inputFromIds(const Model& model, const std::vector<int>& ids, OverContext over);

}  // namespace qkv
