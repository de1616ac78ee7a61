#pragma once
// The Training tab: the open model's trained variants (PREFIX-learned, -shared-qk, -tied-kv,
// -single-w beside it) compared as an experiment: their training and validation loss curves,
// a table of final losses, and the current sentence's attention at the chosen head under each
// variant, run as trained on the lab's own worker thread; the relation accuracy too when the
// logs carry it. A model without variants or logs gets an explanation of how to make some, and
// the shipped example one click away. An experiment folder (several seeds per variant, see
// experiment_view.h) replaces all this until it is closed.
#include <QString>
#include <memory>
#include <vector>

#include "ui/training/experiment_folder.h"
#include "ui/views/document_view.h"

class QCustomPlot;
class QLabel;
class QPushButton;
class QStackedWidget;

namespace qkv::ui {

class ExperimentView;
class HeatmapWidget;
class TrainingLab;
class TrainingTable;
struct HeatmapCell;

class TrainingView : public DocumentView {
    Q_OBJECT
  public:
    explicit TrainingView(LabDocument& document, QWidget* parent = nullptr);
    ~TrainingView() override;

    TrainingLab& lab() const { return *m_lab; }
    HeatmapWidget* heatmap() const { return m_heatmap; }
    QCustomPlot* lossPlot() const { return m_losses; }
    QCustomPlot* accuracyPlot() const { return m_accuracy; }  // hidden when no log has it
    TrainingTable* table() const { return m_table; }
    bool isShowingEmptyState() const;
    QString emptyStateText() const;
    QString noticeText() const;  // truncated sentences and variants that could not run

    // Experiment mode: the tab shows EXPERIMENT instead of the model's variants.
    void showExperiment(ExperimentFolder experiment);
    void closeExperiment();
    bool isShowingExperiment() const { return m_experimentOpen; }
    ExperimentView* experimentView() const { return m_experiment; }

  signals:
    void openModelRequested(QString folder);
    void experimentClosed();

  protected:
    void refresh() override;

  private:
    QWidget* buildEmptyPage();
    QWidget* buildLabPage();
    void showEmptyState();
    void refreshVariants();
    void refreshAttention();
    QString cellToolTip(const HeatmapCell& cell) const;

    std::unique_ptr<TrainingLab> m_lab;
    bool m_variantsDirty = true;
    bool m_experimentOpen = false;
    std::vector<int> m_panelVariants;  // heatmap panel -> index in the attention snapshot

    QStackedWidget* m_pages = nullptr;
    QLabel* m_emptyText = nullptr;
    QPushButton* m_openExample = nullptr;
    QLabel* m_banner = nullptr;
    QCustomPlot* m_losses = nullptr;
    QCustomPlot* m_accuracy = nullptr;
    TrainingTable* m_table = nullptr;
    HeatmapWidget* m_heatmap = nullptr;
    QLabel* m_notice = nullptr;
    ExperimentView* m_experiment = nullptr;
};

}  // namespace qkv::ui
