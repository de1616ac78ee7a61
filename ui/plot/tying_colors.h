#pragma once
// Categorical colours: matplotlib's tab10, distinguishable in print and for most colour-blind
// readers. One per attention tying, the same in the loss curves, the table and the heatmap
// titles; heads, queries and keys, encoders and decoders take theirs from the same palette.
#include <QColor>
#include <QString>
#include <QStringList>
#include <vector>

namespace qkv::ui {

QColor tyingColor(const QString& tying);  // unknown tyings get grey
// tab10's colour number `index` (repeating after ten): the palette of every categorical figure.
QColor tab10Color(int index);
// One distinct colour per named variant of an experiment: the four tyings keep their own, other
// names take the tab10 colours no tying uses, in order.
std::vector<QColor> variantColors(const QStringList& names);

}  // namespace qkv::ui
