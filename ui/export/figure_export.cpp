#include "ui/export/figure_export.h"

#include <qcustomplot.h>

#include <QBuffer>
#include <QCoreApplication>
#include <QFileInfo>
#include <QPageSize>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <cmath>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "ui/plot/heatmap_figure.h"

namespace qkv::ui {
namespace {

// Vector output at 96 dpi, like the screen, so text keeps its size relative to the cells.
constexpr int kVectorDpi = 96;

// Restores the figure's on-screen layout after it was laid out at an export size.
class ExportLayout {
  public:
    ExportLayout(HeatmapFigure& figure, const QSize& size) : m_figure(figure) {
        m_figure.fitCells(size);
    }
    ~ExportLayout() { m_figure.fitCells(m_figure.plot()->size()); }

  private:
    HeatmapFigure& m_figure;
};

QByteArray renderSvg(QCustomPlot* plot, const QSize& size) {
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setResolution(kVectorDpi);
    generator.setTitle(QStringLiteral("QKV Lab figure"));
    QCPPainter painter;
    if (!painter.begin(&generator)) throw Error("could not start the SVG renderer");
    painter.setMode(QCPPainter::pmVectorized);
    plot->toPainter(&painter, size.width(), size.height());
    painter.end();
    // Viewers smooth embedded images when scaling them; heatmap cells must stay sharp.
    QByteArray svg = buffer.data();
    return svg.replace("<image ", "<image style=\"image-rendering:pixelated\" ");
}

QByteArray renderPdf(QCustomPlot* plot, const QSize& size) {
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    writer.setResolution(kVectorDpi);
    writer.setCreator(QStringLiteral("QKV Lab"));
    const QSizeF points(size.width() * 72.0 / kVectorDpi, size.height() * 72.0 / kVectorDpi);
    writer.setPageSize(QPageSize(points, QPageSize::Point));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    QCPPainter painter;
    if (!painter.begin(&writer)) throw Error("could not start the PDF renderer");
    painter.setMode(QCPPainter::pmVectorized);
    painter.setWindow(QRect(QPoint(0, 0), size));
    plot->toPainter(&painter, size.width(), size.height());
    painter.end();
    return buffer.data();
}

}  // namespace

std::optional<ImageFormat> imageFormatForPath(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == "png") return ImageFormat::Png;
    if (suffix == "svg") return ImageFormat::Svg;
    if (suffix == "pdf") return ImageFormat::Pdf;
    return std::nullopt;
}

QString imageFormatExtension(ImageFormat format) {
    switch (format) {
        case ImageFormat::Png:
            return QStringLiteral("png");
        case ImageFormat::Svg:
            return QStringLiteral("svg");
        case ImageFormat::Pdf:
            return QStringLiteral("pdf");
    }
    return {};
}

double rasterPixelScale(const QSize& size, double requested) {
    const double logical = static_cast<double>(size.width()) * size.height();
    if (logical * requested * requested <= static_cast<double>(kMaxRasterPixels)) return requested;
    if (logical > static_cast<double>(kMaxRasterPixels))
        throw Error(QStringLiteral("a %1 × %2 pixel image is larger than the %3 megapixels a "
                                   "raster export may have: export as SVG or PDF, or smaller")
                        .arg(size.width())
                        .arg(size.height())
                        .arg(kMaxRasterPixels / 1'000'000)
                        .toStdString());
    // Rounded down to a hundredth so the pixel count stays under the cap.
    return std::floor(std::sqrt(kMaxRasterPixels / logical) * 100.0) / 100.0;
}

QString reducedScaleNote(double scale) {
    if (scale >= kPngScale) return {};
    return QCoreApplication::translate(
               "qkv::ui::FigureExport",
               " (drawn at %1× instead of %2× to stay within %3 megapixels)")
        .arg(scale)
        .arg(kPngScale)
        .arg(kMaxRasterPixels / 1'000'000);
}

QImage plotImage(QCustomPlot* plot, const QSize& size, double pixelScale) {
    const double scale = rasterPixelScale(size, pixelScale);
    const QImage image = plot->toPixmap(size.width(), size.height(), scale).toImage();
    if (image.isNull()) throw Error("out of memory while drawing the image");
    return image;
}

QImage figureImage(HeatmapFigure& figure, const QSize& size, double pixelScale) {
    ExportLayout layout(figure, size);
    return plotImage(figure.plot(), size, pixelScale);
}

QByteArray renderPlot(QCustomPlot* plot, ImageFormat format, const QSize& size, double pixelScale) {
    if (size.isEmpty()) throw Error("cannot export an empty figure");
    if (format == ImageFormat::Png) {
        const QImage image = plotImage(plot, size, pixelScale);
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        if (!image.save(&buffer, "PNG")) throw Error("could not encode the PNG");
        return buffer.data();
    }
    return format == ImageFormat::Svg ? renderSvg(plot, size) : renderPdf(plot, size);
}

QByteArray renderFigure(HeatmapFigure& figure, ImageFormat format, const QSize& size,
                        double pixelScale) {
    ExportLayout layout(figure, size);
    return renderPlot(figure.plot(), format, size, pixelScale);
}

std::optional<double> exportFigure(HeatmapFigure& figure, const QString& path, const QSize& size) {
    ExportLayout layout(figure, size);
    return exportPlot(figure.plot(), path, size);
}

std::optional<double> exportPlot(QCustomPlot* plot, const QString& path, const QSize& size) {
    const auto format = imageFormatForPath(path);
    if (!format) throw Error(path.toStdString() + ": unknown image type (use .png, .svg or .pdf)");
    QByteArray bytes;
    try {
        bytes = renderPlot(plot, *format, size, kPngScale);
    } catch (const Error& e) {
        throw Error(path.toStdString() + ": " + e.what());
    }
    writeFileAtomically(path.toStdString(), std::string_view(bytes.constData(), bytes.size()));
    if (*format != ImageFormat::Png) return std::nullopt;
    return rasterPixelScale(size, kPngScale);
}

}  // namespace qkv::ui
