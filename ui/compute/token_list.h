#pragma once
// Turning a model's tokens into what the UI shows, the same way in the app and in headless
// rendering, and cutting a sentence to the model's context visibly rather than silently.
#include <QString>
#include <optional>
#include <string>
#include <vector>

#include "core/model/model.h"
#include "ui/compute/compute_types.h"

namespace qkv::ui {

ShownToken shownToken(const Model& model, int id, const std::string& piece, bool special);

struct TokenizedText {
    std::vector<ShownToken> tokens;
    std::optional<int> truncatedFrom;  // set when the text had more tokens than the context
};

// Token ids typed directly: "#464 3807 373" (spaces or commas after a leading '#'); nullopt for
// ordinary text; throws qkv::Error naming an item that is not an id.
std::optional<std::vector<int>> typedTokenIds(const QString& text);

// Tokenizes with the model's tokenizer (throws qkv::Error when it has none), or takes typed ids,
// and keeps the first contextLength tokens.
TokenizedText tokenizeForModel(const Model& model, const QString& text);

}  // namespace qkv::ui
