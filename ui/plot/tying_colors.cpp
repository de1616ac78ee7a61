#include "ui/plot/tying_colors.h"

#include <iterator>

namespace qkv::ui {

QColor tab10Color(int index) {
    static const QColor colors[] = {{0x1f, 0x77, 0xb4}, {0xff, 0x7f, 0x0e}, {0x2c, 0xa0, 0x2c},
                                    {0xd6, 0x27, 0x28}, {0x94, 0x67, 0xbd}, {0x8c, 0x56, 0x4b},
                                    {0xe3, 0x77, 0xc2}, {0x7f, 0x7f, 0x7f}, {0xbc, 0xbd, 0x22},
                                    {0x17, 0xbe, 0xcf}};
    return colors[((index % 10) + 10) % 10];
}

namespace {

constexpr int kTyings = 4;
constexpr int kGrey = 7;

int tyingIndex(const QString& tying) {
    const QLatin1String tyings[kTyings] = {QLatin1String("learned"), QLatin1String("shared-qk"),
                                           QLatin1String("tied-kv"), QLatin1String("single-w")};
    for (int i = 0; i < kTyings; ++i)
        if (tying == tyings[i]) return i;
    return -1;
}

}  // namespace

QColor tyingColor(const QString& tying) {
    const int index = tyingIndex(tying);
    return tab10Color(index >= 0 ? index : kGrey);
}

std::vector<QColor> variantColors(const QStringList& names) {
    // The colours no tying has, grey last: grey reads as "unknown".
    constexpr int kExtras[] = {4, 5, 6, 8, 9, kGrey};
    std::vector<QColor> colors;
    int extra = 0;
    for (const QString& name : names) {
        const int index = tyingIndex(name);
        colors.push_back(tab10Color(index >= 0 ? index : kExtras[extra++ % std::size(kExtras)]));
    }
    return colors;
}

}  // namespace qkv::ui
