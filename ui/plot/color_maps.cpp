#include "ui/plot/color_maps.h"

#include <initializer_list>

namespace qkv::ui {
namespace {

QCPColorGradient gradientFrom(std::initializer_list<const char*> stops) {
    QCPColorGradient gradient;
    gradient.clearColorStops();
    const double step = 1.0 / static_cast<double>(stops.size() - 1);
    int i = 0;
    for (const char* hex : stops) gradient.setColorStopAt(i++ * step, QColor(hex));
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    gradient.setLevelCount(256);
    gradient.setNanHandling(QCPColorGradient::nhNanColor);
    gradient.setNanColor(maskedCellColor());
    return gradient;
}

}  // namespace

QStringList sequentialMapNames() { return {"viridis", "cividis", "magma", "greys"}; }
QStringList divergingMapNames() { return {"blue-white-red", "purple-white-green"}; }

QColor maskedCellColor() { return QColor(0xe4, 0xe4, 0xe8); }

QCPColorGradient sequentialGradient(const QString& name) {
    if (name == "magma")
        return gradientFrom({"#000004", "#1c1044", "#4f127b", "#812581", "#b5367a", "#e55064",
                             "#fb8761", "#fec287", "#fcfdbf"});
    // cividis: viridis made for colour-vision deficiency (Nuñez et al. 2018), matplotlib's stops.
    if (name == "cividis")
        return gradientFrom({"#00224e", "#123570", "#3b496c", "#575d6d", "#707173", "#8a8678",
                             "#a59c74", "#c3b369", "#e1cc55", "#fee838"});
    if (name == "greys")
        return gradientFrom({"#ffffff", "#d9d9d9", "#969696", "#525252", "#000000"});
    return gradientFrom({"#440154", "#472c7a", "#3b518b", "#2c718e", "#21908d", "#27ad81",
                         "#5cc863", "#aadc32", "#fde725"});
}

QCPColorGradient divergingGradient(const QString& name) {
    if (name == "purple-white-green")
        return gradientFrom(
            {"#40004b", "#762a83", "#c2a5cf", "#f7f7f7", "#a6dba0", "#1b7837", "#00441b"});
    return gradientFrom(
        {"#053061", "#2166ac", "#92c5de", "#f7f7f7", "#f4a582", "#b2182b", "#67001f"});
}

}  // namespace qkv::ui
