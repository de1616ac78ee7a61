#include "ui/compute/token_list.h"

namespace qkv::ui {

QString tokenLabel(const std::string& displayText) {
    QString text = QString::fromStdString(displayText);
    text.replace(u'\n', u'↵').replace(u'\t', u'⇥').replace(u'\r', u'␍');
    const QString trimmed = text.trimmed();
    return trimmed.isEmpty() ? QStringLiteral("␣") : trimmed;
}

ShownToken shownToken(const Model& model, int id, const std::string& piece, bool special) {
    ShownToken token;
    token.id = id;
    token.piece = QString::fromStdString(piece);
    token.special = special;
    const Tokenizer* tokenizer = model.tokenizer();
    token.label = tokenizer ? tokenLabel(tokenizer->displayText(id)) : QString::number(id);
    return token;
}

TokenizedText tokenizeForModel(const Model& model, const QString& text) {
    TokenizedText out;
    const std::vector<Token> tokens = model.tokenize(text.toStdString());
    const int context = model.config().contextLength;
    const int kept = context > 0 ? std::min<int>(context, static_cast<int>(tokens.size()))
                                 : static_cast<int>(tokens.size());
    if (kept < static_cast<int>(tokens.size())) out.truncatedFrom = static_cast<int>(tokens.size());
    out.tokens.reserve(kept);
    for (int i = 0; i < kept; ++i)
        out.tokens.push_back(shownToken(model, tokens[i].id, tokens[i].piece, tokens[i].special));
    return out;
}

}  // namespace qkv::ui
