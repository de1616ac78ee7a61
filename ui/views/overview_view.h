#pragma once
// The Overview tab: a layers x heads grid coloured by one head metric (W_QK symmetry, score
// symmetry, subspace similarities, ...), every number on hover; a click opens that head.
#include "ui/plot/metric_matrices.h"
#include "ui/views/document_view.h"

class QComboBox;
class QLabel;

namespace qkv::ui {

class HeatmapWidget;

class OverviewView : public DocumentView {
    Q_OBJECT
  public:
    explicit OverviewView(LabDocument& document, QWidget* parent = nullptr);
    HeatmapWidget* heatmap() const { return m_heatmap; }
    HeadMetric metric() const;
    void setMetric(HeadMetric metric);

  signals:
    void headActivated(int layer, int head);  // the user clicked a head's cell

  protected:
    void refresh() override;

  private:
    QString cellToolTip(const HeatmapCell& cell) const;
    QString surveyLine(const ModelMetrics& metrics) const;
    void onMetricChosen();

    QComboBox* m_metric;
    QLabel* m_help;
    QLabel* m_summary;
    HeatmapWidget* m_heatmap;
};

}  // namespace qkv::ui
