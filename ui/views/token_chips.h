#pragma once
// The sentence's tokens as chips, numbered as on the heatmap axes: special tokens greyed, the
// selected pair highlighted (query orange, key blue), a click pins a token (dashed border), and
// a visible note when the sentence was cut to the model's context.
#include <QStringList>
#include <QWidget>

class QLabel;
class QScrollArea;

namespace qkv::ui {

class FlowLayout;
class LabDocument;

class TokenChips : public QWidget {
    Q_OBJECT
  public:
    explicit TokenChips(LabDocument& document, QWidget* parent = nullptr);

    QStringList chipTexts() const;   // what the chips show, in order
    QString noticeText() const;      // truncation note, or empty
    QWidget* chip(int index) const;  // a click on it pins its token

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

  private:
    void rebuild();
    void highlight();
    void fitHeight();  // the chips' height, at most four rows (then they scroll)

    LabDocument& m_document;
    QScrollArea* m_scroll;
    QWidget* m_chipArea;
    FlowLayout* m_flow;
    QLabel* m_notice;
    QLabel* m_emptyHint;  // shown while there are no tokens
    QList<QLabel*> m_chips;
};

}  // namespace qkv::ui
