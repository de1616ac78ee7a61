#pragma once
// Categorical colours: matplotlib's tab10, distinguishable in print and for most colour-blind
// readers. One per attention tying, the same in the loss curves, the table and the heatmap
// titles; heads, queries and keys, encoders and decoders take theirs from the same palette.
#include <QColor>
#include <QString>

namespace qkv::ui {

QColor tyingColor(const QString& tying);  // unknown tyings get grey
// tab10's colour number `index` (repeating after ten): the palette of every categorical figure.
QColor tab10Color(int index);

}  // namespace qkv::ui
