#pragma once
// How a token is shown to a person — the app's chips and axes and the command line's tables
// alike: the text it stands for (not the vocabulary's piece: "Ġgave" shows as "gave"), with line
// breaks and tabs as visible marks, and a blank one as "␣". Tables pad and cut by display width
// (columns on a terminal), not bytes, so non-ASCII tokens stay aligned.
#include <string>
#include <string_view>

namespace qkv {

class Tokenizer;

// The label of token `id`; `piece` where the tokenizer does not know the id (or there is none).
std::string tokenLabel(const Tokenizer* tokenizer, int id, const std::string& piece);
// The same from the text a token stands for.
std::string tokenLabelOf(std::string_view displayText);

// Columns `text` (valid UTF-8) takes on a terminal: wide characters 2, combining marks 0.
int displayWidth(std::string_view text);
// `text` cut to at most `width` columns (whole characters) and padded with spaces on the left
// to exactly `width`, as printf's "%*.*s" does for ASCII.
std::string rightAligned(std::string_view text, int width);

}  // namespace qkv
