#pragma once
// A rich-text label that wraps its lines: the banners and notices of the training views.
#include <QLabel>

namespace qkv::ui {

inline QLabel* wrappingLabel(QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextFormat(Qt::RichText);
    return label;
}

}  // namespace qkv::ui
