#pragma once
// The Overview tab: a layers x heads grid coloured by one head metric (W_QK symmetry, score
// symmetry, subspace similarities, ...), every number on hover; a click opens that head. Named
// heads carry their name on their cell; a cell's context menu names or renames a head.
#include "ui/plot/metric_matrices.h"
#include "ui/views/document_view.h"

class QCheckBox;
class QComboBox;
class QStackedWidget;
class QLabel;

namespace qkv::ui {

class HeatmapWidget;
class ThumbnailGrid;

class OverviewView : public DocumentView {
    Q_OBJECT
  public:
    explicit OverviewView(LabDocument& document, QWidget* parent = nullptr);
    HeatmapWidget* heatmap() const { return m_heatmap; }
    ThumbnailGrid* thumbnails() const { return m_thumbnails; }
    // The thumbnails (every head's attention) instead of the metric grid.
    bool showsThumbnails() const;
    void setShowsThumbnails(bool shown);
    HeadMetric shownMetric() const;
    void setShownMetric(HeadMetric metric);

  signals:
    void headActivated(int layer, int head);  // the user clicked a head's cell
    void thumbnailsToggled(bool shown);

  protected:
    void refresh() override;

  private:
    QString cellToolTip(const HeatmapCell& cell) const;
    QString surveyLine(const ModelMetrics& metrics) const;
    void refreshThumbnails();
    void onMetricChosen();
    // The metrics the list offers: the sink share only for a model with attention sinks
    // (gpt-oss), the dropped mass only where a mask hides keys, the changes only while another
    // checkpoint is compared.
    bool isOffered(HeadMetric metric) const;
    void offerMetrics();
    void showCellMenu(const QPoint& position);

    QComboBox* m_metric;
    QLabel* m_help;
    QLabel* m_summary;
    QCheckBox* m_thumbnailToggle;
    QStackedWidget* m_pages;
    HeatmapWidget* m_heatmap;
    ThumbnailGrid* m_thumbnails;
};

}  // namespace qkv::ui
