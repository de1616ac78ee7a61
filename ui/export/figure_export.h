#pragma once
// Renders a HeatmapFigure to PNG, SVG or PDF (chosen by the file's extension) and writes it
// all-or-nothing (core's writeFileAtomically): an unwritable folder or a full disk throws
// qkv::Error and leaves no partial file behind.
#include <QByteArray>
#include <QImage>
#include <QSize>
#include <QString>
#include <functional>
#include <optional>

#include "ui/export/figure_provenance.h"

class QCustomPlot;
class QPainter;

namespace qkv::ui {

class HeatmapFigure;

enum class ImageFormat { Png, Svg, Pdf };

std::optional<ImageFormat> imageFormatForPath(const QString& path);
QString imageFormatExtension(ImageFormat format);  // "png", "svg", "pdf"

// Raster images are drawn at `pixelScale` device pixels per logical pixel (crisp in papers).
constexpr double kPngScale = 2.0;
// A raster image never has more pixels than this (144 MB as 32-bit pixels while it is encoded;
// a 2x export of a maximised window on a 4K screen is 33 megapixels). Larger requests are drawn
// at a smaller pixel scale, down to 1x; beyond that they are refused. Vector formats draw each
// heatmap as one embedded image of the figure's size, so they grow with the figure's size, not
// with the number of cells.
constexpr qint64 kMaxRasterPixels = 36'000'000;

// `requested`, or the largest scale at which `size` stays within kMaxRasterPixels. Throws
// qkv::Error saying so when even 1x does not fit.
double rasterPixelScale(const QSize& size, double requested);
// " (drawn at 1.34× instead of 2× to stay within 36 megapixels)" when `scale` is below
// kPngScale, so a smaller picture is never a silent one; empty otherwise.
QString reducedScaleNote(double scale);

// The figure laid out at `size` logical pixels, as the file's bytes. Raster images are drawn at
// rasterPixelScale(size, pixelScale). Throws qkv::Error.
QByteArray renderFigure(HeatmapFigure& figure, ImageFormat format, const QSize& size,
                        double pixelScale = kPngScale);
QImage figureImage(HeatmapFigure& figure, const QSize& size, double pixelScale = kPngScale);
QImage plotImage(QCustomPlot* plot, const QSize& size, double pixelScale = kPngScale);

// Every file carries its provenance in the format's metadata (figure_metadata.h): a figure's or
// plot's the record its view set with setPlotProvenance (plot_provenance.h), with the app's
// version and the time of writing added.
// Throws qkv::Error naming the path (unknown extension, render or write failure). Returns the
// pixel scale a PNG was drawn at (less than kPngScale for a very large figure), nullopt for SVG
// and PDF.
std::optional<double> exportFigure(HeatmapFigure& figure, const QString& path, const QSize& size);
std::optional<double> exportPlot(QCustomPlot* plot, const QString& path, const QSize& size);

// Views drawn with a QPainter (the Lines tab): `paint` draws the figure at `size` logical pixels
// on a white page, into a PNG at kPngScale, an SVG or a PDF.
using Painting = std::function<void(QPainter& painter, const QSize& size)>;
QImage paintingImage(const Painting& paint, const QSize& size, double pixelScale = kPngScale);
std::optional<double> exportPainting(const Painting& paint, const QString& path, const QSize& size,
                                     const FigureProvenance& provenance = {});

}  // namespace qkv::ui
