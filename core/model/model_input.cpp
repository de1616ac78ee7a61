#include "core/model/model_input.h"

#include "core/util/error.h"

namespace qkv {
namespace {

ModelInput withinContext(const Model& model, std::vector<Token> tokens, OverContext over) {
    ModelInput input;
    const auto context = static_cast<std::size_t>(model.architecture().contextLength);
    if (tokens.size() > context) {
        if (over == OverContext::Refuse)
            throw Error("the input has " + std::to_string(tokens.size()) + " tokens but " +
                        model.name() + " accepts at most " + std::to_string(context));
        input.truncatedFrom = tokens.size();
        tokens.resize(context);
    }
    input.tokens = std::move(tokens);
    return input;
}

}  // namespace

ModelInput inputFromText(const Model& model, const std::string& text, OverContext over) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw Error("the sentence is empty: type a sentence");
    if (!model.tokenizer())
        throw Error(model.name() + ": cannot tokenize text without a tokenizer (" +
                    model.tokenizerError() + "); give token ids instead");
    return withinContext(model, model.tokenize(text), over);
}

ModelInput inputFromIds(const Model& model, const std::vector<int>& ids, OverContext over) {
    std::vector<Token> tokens;
    tokens.reserve(ids.size());
    for (int id : ids) tokens.push_back({id, model.pieceOrNumber(id), 0, 0, false});
    return withinContext(model, std::move(tokens), over);
}

}  // namespace qkv
