#pragma once
// The Training tab's experiment page: a folder written by `qkvlab-cli experiment` (several
// variants, each trained with several seeds). Per variant one colour; the mean over seeds of
// the validation loss, and of the relation accuracy when the logs carry it, as a line over a
// shaded min–max band (the loss also zoomed into the second half of the run, where the variants
// differ by hundredths of a nat); a table of the final values as mean ± sd and the paired
// differences against the baseline. Runs whose log is missing are named and left out of the curves.
#include <QWidget>
#include <optional>

#include "ui/training/experiment_folder.h"

class QCustomPlot;
class QLabel;

namespace qkv::ui {

class ExperimentTable;

class ExperimentView : public QWidget {
    Q_OBJECT
  public:
    explicit ExperimentView(QWidget* parent = nullptr);

    void setExperiment(ExperimentFolder experiment);
    const std::optional<ExperimentFolder>& experiment() const { return m_experiment; }

    QCustomPlot* lossPlot() const { return m_losses; }
    QCustomPlot* lateLossPlot() const { return m_lateLosses; }  // the second half, zoomed
    QCustomPlot* accuracyPlot() const { return m_accuracy; }    // hidden when no log has it
    ExperimentTable* table() const { return m_table; }
    QString bannerText() const;
    QString noticeText() const;  // the runs that could not be read

  signals:
    void closeRequested();

  private:
    std::optional<ExperimentFolder> m_experiment;
    QLabel* m_banner = nullptr;
    QCustomPlot* m_losses = nullptr;
    QCustomPlot* m_lateLosses = nullptr;
    QCustomPlot* m_accuracy = nullptr;
    ExperimentTable* m_table = nullptr;
    QLabel* m_notice = nullptr;
};

}  // namespace qkv::ui
