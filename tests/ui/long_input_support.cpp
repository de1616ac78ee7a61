#include "tests/ui/long_input_support.h"

#include <QLineEdit>
#include <random>

#include "ui/views/sentence_bar.h"

namespace qkv::ui::test {

::testing::AssertionResult LongInputTest::openLongInputModel() {
    qkv::test::writeTinyGpt2(m_modelDir.path(), {.layers = 2, .heads = 4, .context = 4096});
    return open(QString::fromStdString(m_modelDir.path().string()));
}

::testing::AssertionResult LongInputTest::typeTokenIds(int count) {
    constexpr int kVocab = qkv::test::TinyModelSpec{}.vocab;
    std::mt19937 random(11);
    std::uniform_int_distribution<int> id(0, kVocab - 1);
    QString text = QStringLiteral("#");
    for (int i = 0; i < count; ++i) text += QString::number(id(random)) + u' ';
    text.chop(1);
    window->sentenceBar()->editor()->setText(text);
    if (!waitFor(
            [&] { return !doc().isBusy() && doc().snapshot() && doc().snapshot()->text == text; }))
        return ::testing::AssertionFailure() << "no result for " << count << " typed ids";
    if (static_cast<int>(doc().snapshot()->tokens.size()) != count)
        return ::testing::AssertionFailure() << doc().snapshot()->tokens.size() << " tokens";
    return settle();
}

}  // namespace qkv::ui::test
