#include "ui/plot/tying_colors.h"

namespace qkv::ui {

QColor tyingColor(const QString& tying) {
    if (tying == QLatin1String("learned")) return QColor(0x1f, 0x77, 0xb4);
    if (tying == QLatin1String("shared-qk")) return QColor(0xff, 0x7f, 0x0e);
    if (tying == QLatin1String("tied-kv")) return QColor(0x2c, 0xa0, 0x2c);
    if (tying == QLatin1String("single-w")) return QColor(0xd6, 0x27, 0x28);
    return QColor(0x7f, 0x7f, 0x7f);
}

}  // namespace qkv::ui
