#pragma once
// One colour per attention tying, the same in the loss curves, the table and the heatmap titles
// (matplotlib's tab10, distinguishable in print and for most colour-blind readers).
#include <QColor>
#include <QString>

namespace qkv::ui {

QColor tyingColor(const QString& tying);  // unknown tyings get grey

}  // namespace qkv::ui
