#include "ui/plot/tying_colors.h"

namespace qkv::ui {

QColor tab10Color(int index) {
    static const QColor colors[] = {{0x1f, 0x77, 0xb4}, {0xff, 0x7f, 0x0e}, {0x2c, 0xa0, 0x2c},
                                    {0xd6, 0x27, 0x28}, {0x94, 0x67, 0xbd}, {0x8c, 0x56, 0x4b},
                                    {0xe3, 0x77, 0xc2}, {0x7f, 0x7f, 0x7f}, {0xbc, 0xbd, 0x22},
                                    {0x17, 0xbe, 0xcf}};
    return colors[((index % 10) + 10) % 10];
}

QColor tyingColor(const QString& tying) {
    const QLatin1String tyings[] = {QLatin1String("learned"), QLatin1String("shared-qk"),
                                    QLatin1String("tied-kv"), QLatin1String("single-w")};
    for (int i = 0; i < 4; ++i)
        if (tying == tyings[i]) return tab10Color(i);
    return tab10Color(7);  // grey
}

}  // namespace qkv::ui
