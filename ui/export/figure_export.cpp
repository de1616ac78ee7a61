#include "ui/export/figure_export.h"

#include <qcustomplot.h>

#include <QBuffer>
#include <QCoreApplication>
#include <QFileInfo>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <cmath>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "ui/export/figure_metadata.h"
#include "ui/export/plot_provenance.h"
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

namespace {

FigureProvenance stamped(FigureProvenance provenance) {
    provenance.stamp();
    return provenance;
}

QByteArray pngBytes(QImage image, const FigureProvenance& provenance) {
    addPngText(image, provenance);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG")) throw Error("could not encode the PNG");
    return buffer.data();
}

// SVG and PDF are painted with a QCPPainter (a QPainter that QCustomPlot can also draw with).
QByteArray renderPainting(const Painting& paint, ImageFormat format, const QSize& size,
                          const FigureProvenance& provenance) {
    if (size.isEmpty()) throw Error("cannot export an empty figure");
    if (format == ImageFormat::Png) return pngBytes(paintingImage(paint, size), provenance);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    QPdfWriter pdf(&buffer);
    QCPPainter painter;  // a QPainter that QCustomPlot can also draw with
    if (format == ImageFormat::Svg) {
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setResolution(kVectorDpi);
        describeSvg(svg, provenance);
        if (!painter.begin(&svg)) throw Error("could not start the SVG renderer");
    } else {
        pdf.setResolution(kVectorDpi);
        describePdf(pdf, provenance);
        pdf.setPageSize(
            QPageSize(QSizeF(size.width() * 72.0 / kVectorDpi, size.height() * 72.0 / kVectorDpi),
                      QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        if (!painter.begin(&pdf)) throw Error("could not start the PDF renderer");
        painter.setWindow(QRect(QPoint(0, 0), size));
    }
    painter.setMode(QCPPainter::pmVectorized);
    paint(painter, size);
    painter.end();
    if (format == ImageFormat::Pdf) return withPdfDetails(buffer.data(), provenance);
    // Viewers smooth embedded images when scaling them; heatmap cells must stay sharp.
    QByteArray svgBytes = buffer.data();
    return withSvgMetadata(
        svgBytes.replace("<image ", "<image style=\"image-rendering:pixelated\" "), provenance);
}

QByteArray renderPlot(QCustomPlot* plot, ImageFormat format, const QSize& size, double pixelScale,
                      const FigureProvenance& provenance) {
    if (size.isEmpty()) throw Error("cannot export an empty figure");
    if (format == ImageFormat::Png) return pngBytes(plotImage(plot, size, pixelScale), provenance);
    // Painted by renderPainting's QCPPainter, which QCustomPlot needs.
    return renderPainting(
        [plot](QPainter& painter, const QSize& at) {
            plot->toPainter(static_cast<QCPPainter*>(&painter), at.width(), at.height());
        },
        format, size, provenance);
}

// Renders with `render` in the format `path`'s extension names and writes the file
// all-or-nothing; errors name the path. The PNG's pixel scale, nullopt for SVG and PDF.
std::optional<double> writeImage(const QString& path, const QSize& size,
                                 const std::function<QByteArray(ImageFormat)>& render) {
    const auto format = imageFormatForPath(path);
    if (!format) throw Error(path.toStdString() + ": unknown image type (use .png, .svg or .pdf)");
    QByteArray bytes;
    try {
        bytes = render(*format);
    } catch (const Error& e) {
        throw Error(path.toStdString() + ": " + e.what());
    }
    writeFileAtomically(path.toStdString(), std::string_view(bytes.constData(), bytes.size()));
    if (*format != ImageFormat::Png) return std::nullopt;
    return rasterPixelScale(size, kPngScale);
}

}  // namespace

QByteArray renderFigure(HeatmapFigure& figure, ImageFormat format, const QSize& size,
                        double pixelScale) {
    ExportLayout layout(figure, size);
    return renderPlot(figure.plot(), format, size, pixelScale, stamped(figureProvenance(figure)));
}

std::optional<double> exportFigure(HeatmapFigure& figure, const QString& path, const QSize& size) {
    ExportLayout layout(figure, size);
    const FigureProvenance provenance = stamped(figureProvenance(figure));
    QCustomPlot* plot = figure.plot();
    return writeImage(path, size, [&](ImageFormat format) {
        return renderPlot(plot, format, size, kPngScale, provenance);
    });
}

QImage paintingImage(const Painting& paint, const QSize& size, double pixelScale) {
    const double scale = rasterPixelScale(size, pixelScale);
    QImage image(size * scale, QImage::Format_ARGB32_Premultiplied);
    if (image.isNull()) throw Error("out of memory while drawing the image");
    image.setDevicePixelRatio(scale);
    image.fill(Qt::white);
    QPainter painter(&image);
    paint(painter, size);
    return image;
}

std::optional<double> exportPainting(const Painting& paint, const QString& path, const QSize& size,
                                     const FigureProvenance& provenance) {
    const FigureProvenance stampedProvenance = stamped(provenance);
    return writeImage(path, size, [&](ImageFormat format) {
        return renderPainting(paint, format, size, stampedProvenance);
    });
}

std::optional<double> exportPlot(QCustomPlot* plot, const QString& path, const QSize& size) {
    const FigureProvenance provenance = stamped(plotProvenance(plot));
    return writeImage(path, size, [&](ImageFormat format) {
        return renderPlot(plot, format, size, kPngScale, provenance);
    });
}

}  // namespace qkv::ui
