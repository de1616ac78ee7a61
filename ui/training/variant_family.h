#pragma once
// Which trained variants belong together. `scripts/train-defaults.sh` and users' own runs name
// them PREFIX-learned, PREFIX-shared-qk, PREFIX-tied-kv and PREFIX-single-w side by side in one
// folder; from any one of them the others are found by name.
#include <QString>
#include <QStringList>
#include <vector>

namespace qkv::ui {

// The attention tyings `qkvlab-cli train --config` trains, in the order the lab shows them.
const QStringList& trainingTyings();

struct VariantFolder {
    QString tying;   // "shared-qk", ...
    QString name;    // the folder's name
    QString folder;  // absolute path
    bool operator==(const VariantFolder&) const = default;
};

struct VariantFamily {
    QString prefix;  // "qkv-stories"; the folder's own name for a family of one
    std::vector<VariantFolder> variants;  // in trainingTyings() order

    bool empty() const { return variants.empty(); }
    bool operator==(const VariantFamily&) const = default;
};

// The model folder and the folders beside it named PREFIX-<tying> for the same PREFIX (those
// with a config.json or a training_log.json). A folder whose name ends in no tying but holds a
// training_log.json is a family of one (its tying from the log); otherwise the family is empty.
VariantFamily findVariantFamily(const QString& modelFolder);

}  // namespace qkv::ui
