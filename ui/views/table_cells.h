#pragma once
// Cells of the Training tab's read-only tables: a colour swatch naming a curve, and an item that
// can be read but not edited.
#include <QColor>
#include <QIcon>
#include <QString>

class QTableWidgetItem;

namespace qkv::ui {

QIcon colorSwatch(const QColor& color);
QTableWidgetItem* readOnlyCell(const QString& text, Qt::Alignment alignment = Qt::AlignRight);

}  // namespace qkv::ui
