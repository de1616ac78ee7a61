#pragma once
// The Training tab's table: one row per variant with its final validation loss and perplexity
// (the best in bold), final training loss, steps, parameters and training speed. A run still in
// progress says so; a folder without a log, or with an unreadable one, says why.
#include <QTableWidget>
#include <vector>

#include "ui/training/training_lab.h"

namespace qkv::ui {

class TrainingTable : public QTableWidget {
    Q_OBJECT
  public:
    enum Column { Variant, ValLoss, Perplexity, TrainLoss, Steps, Parameters, TokensPerSecond };

    explicit TrainingTable(QWidget* parent = nullptr);
    void setVariants(const std::vector<LoggedVariant>& variants);
};

}  // namespace qkv::ui
