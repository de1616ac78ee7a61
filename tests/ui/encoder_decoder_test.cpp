// An encoder-decoder model in the app: the target line, filled by the model's own greedy
// translation while empty, and the three attention kinds, each checked against the reference
// (the shared marian-random-tiny's source and target ids).
#include <QComboBox>
#include <QLineEdit>

#include "tests/support/reference.h"
#include "tests/ui/ui_test_support.h"
#include "ui/views/head_picker.h"
#include "ui/views/sentence_bar.h"
#include "ui/views/token_chips.h"

namespace qkv::ui::test {
namespace {

QString typedIds(const std::vector<int>& ids) {
    QString typed = QStringLiteral("#");
    for (int id : ids) typed += QString::number(id) + u' ';
    return typed.trimmed();
}

// The largest |shown - reference| over the shown head's attention.
double worstDifference(const AttentionTrace& trace, int layer, int head,
                       const qkv::test::ReferenceMatrix& expected) {
    const RowMatrixXf& a = trace.probabilities(layer, head);
    EXPECT_EQ(a.rows(), expected.size);
    EXPECT_EQ(a.cols(), expected.cols);
    double worst = 0;
    for (int i = 0; i < std::min<int>(a.rows(), expected.size); ++i)
        for (int j = 0; j < std::min<int>(a.cols(), expected.cols); ++j)
            worst = std::max(worst, std::abs(a(i, j) - expected.at(i, j)));
    return worst;
}

TEST_F(MainWindowTest, EncoderDecoderShowsItsThreeAttentions) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "marian-random-tiny")));
    QLineEdit* target = window->sentenceBar()->targetEditor();
    EXPECT_TRUE(target->isVisibleTo(window.get()));
    const auto reference =
        qkv::test::loadReference(shared / "models" / "marian-random-tiny" / "hf_reference.json");
    const auto& sentence = reference.sentences[0];

    // No target typed: the model writes one (greedily), which fills the line.
    ASSERT_TRUE(type(typedIds(sentence.ids)));
    ASSERT_TRUE(doc().snapshot());
    EXPECT_TRUE(doc().snapshot()->targetWritten);
    EXPECT_TRUE(target->text().startsWith(QStringLiteral("#1023 ")))
        << target->text().toStdString();
    EXPECT_EQ(doc().snapshot()->targetTokens.size(),
              static_cast<size_t>(target->text().split(u' ').size()));

    // The reference's target, then each kind against its reference matrices.
    target->setText(typedIds(sentence.decoderIds));
    ASSERT_TRUE(settle());
    struct Kind {
        AttentionKind kind;
        const qkv::test::ReferenceAttentions& expected;
        size_t rows, cols;
    };
    const auto& results = sentence.results.at("original");
    const size_t n = sentence.ids.size(), t = sentence.decoderIds.size();
    for (const Kind& k : {Kind{AttentionKind::Self, results.attentions, n, n},
                          Kind{AttentionKind::DecoderSelf, results.decoderAttentions, t, t},
                          Kind{AttentionKind::Cross, results.crossAttentions, t, n}}) {
        SCOPED_TRACE(static_cast<int>(k.kind));
        QComboBox* kinds = window->headPicker()->kindBox();
        kinds->setCurrentIndex(kinds->findData(static_cast<int>(k.kind)));
        emit kinds->activated(kinds->currentIndex());
        doc().setHead(1, 2);
        ASSERT_TRUE(settle());
        const auto snapshot = doc().snapshot();
        ASSERT_TRUE(snapshot && snapshot->trace);
        EXPECT_EQ(snapshot->kind, k.kind);
        EXPECT_EQ(snapshot->labels().size(), static_cast<qsizetype>(k.rows));
        EXPECT_EQ(snapshot->keyLabels().size(), static_cast<qsizetype>(k.cols));
        // The chips always show the source sentence.
        EXPECT_EQ(window->tokenChips()->chipTexts().size(), static_cast<qsizetype>(n));
        // float32 against float64, as core's reference test.
        EXPECT_LE(worstDifference(*snapshot->trace, 1, 2, k.expected[1][2]), 1e-4);
        ASSERT_TRUE(waitFor([&] { return doc().metrics() && doc().metrics()->kind == k.kind; }));
    }
    // The keyboard picks the kind too (Ctrl+Alt+1..3), and leaves Alt+1..3 to the heatmap modes;
    // the keys work while a sentence line has the focus, where users type.
    target->setFocus();
    QTest::keyClick(target, Qt::Key_3, Qt::ControlModifier | Qt::AltModifier);
    EXPECT_EQ(doc().attentionKind(), AttentionKind::Cross);
    QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier | Qt::AltModifier);
    EXPECT_EQ(doc().attentionKind(), AttentionKind::DecoderSelf);
    QTest::keyClick(window.get(), Qt::Key_2, Qt::AltModifier);
    EXPECT_EQ(doc().mode(), HeatmapMode::Scores);
    QTest::keyClick(window.get(), Qt::Key_1, Qt::ControlModifier | Qt::AltModifier);
    EXPECT_EQ(doc().attentionKind(), AttentionKind::Self);
    ASSERT_TRUE(settle());
    // Editing the source sentence keeps a typed target.
    doc().setText(typedIds({sentence.ids[0], sentence.ids[1], 0}));
    ASSERT_TRUE(settle());
    EXPECT_EQ(target->text(), typedIds(sentence.decoderIds));
}

TEST_F(MainWindowTest, DecoderOnlyModelsHaveNoTargetLine) {
    QKV_REQUIRE_SHARED(shared);
    ASSERT_TRUE(open(modelPath(shared, "gpt2-random-tiny")));
    EXPECT_FALSE(window->sentenceBar()->targetEditor()->isVisibleTo(window.get()));
    EXPECT_FALSE(window->headPicker()->kindBox()->isVisibleTo(window.get()));
    doc().setAttentionKind(AttentionKind::Cross);  // refused: stays on the model's own
    EXPECT_EQ(doc().attentionKind(), AttentionKind::Self);
}

}  // namespace
}  // namespace qkv::ui::test
