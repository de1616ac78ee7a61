// The one path from text or ids to a model's input (model_input.h): the tokens the tokenizer
// gives, within the context — cut to its first tokens, said in truncatedFrom, or refused.
#include "core/model/model_input.h"

#include <gtest/gtest.h>

#include "core/util/error.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

TEST(ModelInput, KeepsTheContextOrRefusesNamingBothCounts) {
    QKV_REQUIRE_SHARED(shared);
    const auto model = Model::open(shared / "models" / "gpt2-random-tiny");
    const int context = model->architecture().contextLength;
    std::vector<int> ids(context + 3);
    for (int i = 0; i < static_cast<int>(ids.size()); ++i) ids[i] = i % 50;

    const ModelInput cut = inputFromIds(*model, ids, OverContext::Truncate);
    ASSERT_EQ(cut.tokens.size(), static_cast<std::size_t>(context));
    EXPECT_EQ(cut.truncatedFrom, ids.size());
    EXPECT_EQ(cut.tokens.back().id, ids[context - 1]);
    EXPECT_EQ(cut.tokens.front().piece, model->pieceOrNumber(ids[0]));

    try {
        inputFromIds(*model, ids, OverContext::Refuse);
        FAIL() << "more tokens than the context were taken";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find(std::to_string(ids.size()) + " tokens"), std::string::npos);
        EXPECT_NE(message.find("at most " + std::to_string(context)), std::string::npos);
    }
    ids.resize(4);
    EXPECT_FALSE(inputFromIds(*model, ids, OverContext::Refuse).truncatedFrom);
}

TEST(ModelInput, TextIsTheTokenizersAndEmptyTextIsRefused) {
    QKV_REQUIRE_SHARED(shared);
    const auto model = Model::open(shared / "models" / "gpt2-random-tiny");
    const std::string text = "The movie was a box office bomb.";
    const ModelInput input = inputFromText(*model, text, OverContext::Refuse);
    const std::vector<Token> expected = model->tokenize(text);
    ASSERT_EQ(input.tokens.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(input.tokens[i].id, expected[i].id);
    EXPECT_THROW(inputFromText(*model, " \n", OverContext::Truncate), Error);
    const auto withoutTokenizer = Model::open(shared / "models" / "gemma2-random-tiny");
    EXPECT_THROW(inputFromText(*withoutTokenizer, text, OverContext::Truncate), Error);
}

}  // namespace
}  // namespace qkv
