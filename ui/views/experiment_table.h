#pragma once
// The Training tab's table for a multi-seed experiment: per variant its seeds, parameters, the
// final validation loss and relation accuracy as mean ± sd over seeds, and the paired
// difference against the baseline variant, marked with * where the summary finds it larger
// than its spread over seeds.
#include <QTableWidget>

#include "ui/training/experiment_folder.h"

namespace qkv::ui {

class ExperimentTable : public QTableWidget {
    Q_OBJECT
  public:
    enum Column {
        Variant,
        Seeds,
        Parameters,
        ValLoss,
        ValLossVsBaseline,
        RelationAccuracy,
        RelationAccuracyVsBaseline
    };

    explicit ExperimentTable(QWidget* parent = nullptr);
    void setExperiment(const ExperimentFolder& experiment, const std::vector<QColor>& colors);
    int fittingHeight() const;  // every row without scrolling

    static QString meanAndSd(double mean, double sd, int decimals);
    static QString difference(const PairedDifference& d, int decimals);  // "+0.0120 ± 0.0040 *"
};

}  // namespace qkv::ui
