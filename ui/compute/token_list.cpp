#include "ui/compute/token_list.h"

#include <QRegularExpression>

#include "core/model/model_input.h"
#include "core/tokenize/token_label.h"
#include "core/util/error.h"

namespace qkv::ui {

ShownToken shownToken(const Model& model, int id, const std::string& piece, bool special) {
    ShownToken token;
    token.id = id;
    token.piece = QString::fromStdString(piece);
    token.special = special;
    const Tokenizer* tokenizer = model.tokenizer();
    const bool known = tokenizer && id < tokenizer->vocabSize();
    token.label =
        known ? QString::fromStdString(tokenLabel(tokenizer, id, piece)) : QString::number(id);
    return token;
}

std::optional<std::vector<int>> typedTokenIds(const QString& text) {
    const QString trimmed = text.trimmed();
    if (!trimmed.startsWith(u'#')) return std::nullopt;
    std::vector<int> ids;
    static const QRegularExpression separators(QStringLiteral("[\\s,]+"));
    for (const QString& item : trimmed.mid(1).split(separators, Qt::SkipEmptyParts)) {
        bool ok = false;
        const int id = item.toInt(&ok);
        if (!ok || id < 0)
            throw Error("'" + item.toStdString() +
                        "' is not a token id: after '#' type ids separated by spaces, e.g. "
                        "#464 3807 373");
        ids.push_back(id);
    }
    return ids;
}

TokenizedText tokenizeForModel(const Model& model, const QString& text) {
    TokenizedText out;
    if (text.trimmed().isEmpty()) return out;  // nothing to read
    const auto ids = typedTokenIds(text);
    const ModelInput input = ids ? inputFromIds(model, *ids, OverContext::Truncate)
                                 : inputFromText(model, text.toStdString(), OverContext::Truncate);
    if (input.truncatedFrom) out.truncatedFrom = static_cast<int>(*input.truncatedFrom);
    out.tokens.reserve(input.tokens.size());
    for (const Token& t : input.tokens)
        out.tokens.push_back(shownToken(model, t.id, t.piece, t.special));
    return out;
}

}  // namespace qkv::ui
