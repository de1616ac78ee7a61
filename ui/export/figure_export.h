#pragma once
// Renders a HeatmapFigure to PNG, SVG or PDF (chosen by the file's extension) and writes it
// all-or-nothing (core's writeFileAtomically): an unwritable folder or a full disk throws
// qkv::Error and leaves no partial file behind.
#include <QByteArray>
#include <QImage>
#include <QSize>
#include <QString>
#include <optional>

namespace qkv::ui {

class HeatmapFigure;

enum class ImageFormat { Png, Svg, Pdf };

std::optional<ImageFormat> imageFormatForPath(const QString& path);
QString imageFormatExtension(ImageFormat format);  // "png", "svg", "pdf"

// Raster images are drawn at `pixelScale` device pixels per logical pixel (crisp in papers).
constexpr double kPngScale = 2.0;

// The figure laid out at `size` logical pixels, as the file's bytes. Throws qkv::Error.
QByteArray renderFigure(HeatmapFigure& figure, ImageFormat format, const QSize& size,
                        double pixelScale = kPngScale);
QImage figureImage(HeatmapFigure& figure, const QSize& size, double pixelScale = kPngScale);

// Throws qkv::Error naming the path (unknown extension, render or write failure).
void exportFigure(HeatmapFigure& figure, const QString& path, const QSize& size);

}  // namespace qkv::ui
