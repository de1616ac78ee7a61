#pragma once
// The Q·K space tab (AttentionViz's view, computed for any sentence): the current head's query
// and key vectors in one plane — the first two principal axes of their union — queries as filled
// dots, keys as open squares, each query joined to the key it attends to most. Under shared-qk
// the two clouds coincide; under the learned weights one sees how far apart W_Q and W_K put them.
// Optionally the plane is that of the head's vectors over the example sentences as well, drawn
// lighter behind the sentence's own.
#include <QColor>
#include <QString>
#include <utility>
#include <vector>

#include "ui/views/document_view.h"

class QCPCurve;
class QCustomPlot;
class QCheckBox;
class QLabel;
class QStackedWidget;

namespace qkv::ui {

class SpaceView : public DocumentView {
    Q_OBJECT
  public:
    explicit SpaceView(LabDocument& document, QWidget* parent = nullptr);
    QCustomPlot* plot() const { return m_plot; }
    // The sentence's queries' (0) or keys' (1) markers, in token order.
    QCPCurve* cloud(int which) const;
    bool isShowingFigure() const;
    bool pooled() const;          // the example sentences' vectors drawn as well
    void setPooled(bool pooled);  // stays off where the model cannot pool (canPool)
    // Whether the example sentences can be pooled: the model has a tokenizer to read them.
    bool canPool() const;
    QString placeholderText() const;

    // Labels placed by the last drawing, and of how many tokens (labels that would cover
    // another are left out, and the legend says how many are shown).
    std::pair<int, int> labelCount() const { return m_labelCount; }

  protected:
    void refresh() override;
    void resizeEvent(QResizeEvent* event) override;

  private:
    struct PlaneLabel {
        double x, y;
        QString text;
        QColor color;
    };
    int placeLabels(const std::vector<PlaneLabel>& labels);
    void showPlaceholder(const QString& text);
    void updatePoolOption();

    QCheckBox* m_pool;
    QStackedWidget* m_pages;
    QCustomPlot* m_plot;
    QLabel* m_placeholder;
    std::pair<int, int> m_labelCount{0, 0};
};

}  // namespace qkv::ui
