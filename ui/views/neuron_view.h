#pragma once
// The Neurons tab: one row of the current head's heatmap taken apart for a chosen query token —
// its q vector, every key's k vector, the products q∘k that sum to each score, the scaled score,
// the softmax, and the OV norms (ui/plot/neuron_figure.h). It shows what a "dot product of
// vectors from two different subspaces" adds up from, dimension by dimension.
#include "ui/views/document_view.h"

class QComboBox;
class QLabel;

namespace qkv::ui {

class HeatmapWidget;
struct HeatmapCell;

class NeuronView : public DocumentView {
    Q_OBJECT
  public:
    explicit NeuronView(LabDocument& document, QWidget* parent = nullptr);
    HeatmapWidget* heatmap() const { return m_heatmap; }
    int queryToken() const;  // the row taken apart, -1 while nothing is shown

  protected:
    void refresh() override;

  private:
    QString cellToolTip(const HeatmapCell& cell) const;
    void fillQueryChoices(const QStringList& labels);

    QComboBox* m_query;
    QLabel* m_help;
    HeatmapWidget* m_heatmap;
};

}  // namespace qkv::ui
