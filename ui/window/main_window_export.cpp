// MainWindow's exports: the figure the current tab shows (to a file, with its data and
// provenance, or to the clipboard) and every head of the sentence (ExportAllJob).
#include <qcustomplot.h>

#include <QClipboard>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

#include "core/util/error.h"
#include "ui/document/lab_document.h"
#include "ui/export/document_provenance.h"
#include "ui/export/export_all_job.h"
#include "ui/export/figure_data.h"
#include "ui/export/plot_provenance.h"
#include "ui/support/message_sink.h"
#include "ui/views/atlas_view.h"
#include "ui/views/compare_view.h"
#include "ui/views/experiment_view.h"
#include "ui/views/head_view.h"
#include "ui/views/heatmap_widget.h"
#include "ui/views/lines_view.h"
#include "ui/views/neuron_view.h"
#include "ui/views/overview_view.h"
#include "ui/views/space_view.h"
#include "ui/views/thumbnail_grid.h"
#include "ui/views/training_view.h"
#include "ui/window/main_window.h"
#include "ui/window/window_settings.h"

namespace qkv::ui {
namespace {

constexpr QSize kFallbackExportSize(1000, 820);

}  // namespace

HeatmapWidget* MainWindow::currentHeatmap() const {
    switch (currentTab()) {
        case Tab::Head:
            return m_headView->heatmap();
        case Tab::Compare:
            return m_compareView->heatmap();
        case Tab::Overview:
            return m_overviewView->heatmap();
        case Tab::Training:  // an experiment has curves only: currentExportable()
            return m_trainingView->isShowingExperiment() ? nullptr : m_trainingView->heatmap();
        case Tab::Neurons:
            return m_neuronView->heatmap();
        case Tab::Atlas:
            return m_atlasView->heatmap();
        case Tab::Space:
        case Tab::Lines:
            return nullptr;  // drawn without a heatmap: currentExportable()
    }
    return m_headView->heatmap();
}

namespace {

// A view drawn with a QPainter, at its own size.
MainWindow::ExportableView paintedView(const Painting& paint, const QSize& size,
                                       const FigureProvenance& provenance) {
    MainWindow::ExportableView view;
    view.size = size;
    view.write = [paint, provenance](const QString& path, const QSize& at) {
        return exportPainting(paint, path, at, provenance);
    };
    view.image = [paint](const QSize& at) { return paintingImage(paint, at); };
    return view;
}

}  // namespace

std::optional<MainWindow::ExportableView> MainWindow::currentExportable() const {
    ExportableView view;
    view.size = exportSize();
    if (currentTab() == Tab::Overview && m_overviewView->showsThumbnails()) {
        ThumbnailGrid* grid = m_overviewView->thumbnails();
        if (grid->isEmpty()) return std::nullopt;
        return paintedView(
            [grid](QPainter& painter, const QSize& size) { grid->paint(painter, size); },
            grid->size(), documentProvenance(*m_document, QStringLiteral("thumbnails"), false));
    } else if (HeatmapWidget* heatmap = currentHeatmap()) {
        if (!heatmap->isShowingFigure()) return std::nullopt;
        view.plot = heatmap->plot();
        view.write = [this, heatmap](const QString& path, const QSize& size) {
            const auto scale = exportFigure(heatmap->figure(), path, size);
            if (m_exportData && m_exportData->isChecked())
                writeFigureData(heatmap->figure().spec(), figureProvenance(heatmap->figure()),
                                path);
            return scale;
        };
        view.image = [heatmap](const QSize& size) { return figureImage(heatmap->figure(), size); };
    } else if (currentTab() == Tab::Space || currentTab() == Tab::Training) {
        QCustomPlot* plot = view.plot = currentTab() == Tab::Space
                                            ? m_spaceView->plot()
                                            : m_trainingView->experimentView()->lossPlot();
        if (currentTab() == Tab::Space && !m_spaceView->isShowingFigure()) return std::nullopt;
        setPlotProvenance(
            plot, documentProvenance(*m_document,
                                     currentTab() == Tab::Space ? QStringLiteral("space")
                                                                : QStringLiteral("training"),
                                     currentTab() == Tab::Space));
        view.write = [plot](const QString& path, const QSize& size) {
            return exportPlot(plot, path, size);
        };
        view.image = [plot](const QSize& size) { return plotImage(plot, size); };
    } else {
        LinesCanvas* canvas = m_linesView->canvas();
        if (canvas->drawnLines() == 0) return std::nullopt;
        // The whole sentence, also what is scrolled out of sight.
        return paintedView(
            [canvas](QPainter& painter, const QSize& size) { canvas->paint(painter, size); },
            canvas->size(), documentProvenance(*m_document, QStringLiteral("lines"), true));
    }
    return view;
}

QSize MainWindow::exportSize() const {
    // The figure as large as on screen: the heatmap's widget, or the tab's for other views.
    const HeatmapWidget* heatmap = currentHeatmap();
    const QSize size = heatmap ? heatmap->size() : m_tabs->currentWidget()->size();
    return size.width() >= 300 && size.height() >= 300 ? size : kFallbackExportSize;
}

bool MainWindow::exportCurrentView(const QString& path) {
    const auto view = currentExportable();
    if (!view) {
        m_sink->error(tr("Nothing to export"),
                      tr("This view shows no figure yet: open a model and type a sentence."));
        return false;
    }
    std::optional<double> scale;
    try {
        scale = view->write(path, view->size);
    } catch (const Error& e) {
        if (view->plot) view->plot->replot();
        m_sink->error(tr("Export failed"), QString::fromStdString(e.what()));
        return false;
    }
    if (view->plot) view->plot->replot();
    settings::kExportFolder.setValue(QFileInfo(path).absolutePath());
    statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)) +
                                 (scale ? reducedScaleNote(*scale) : QString()),
                             6000);
    return true;
}

bool MainWindow::copyCurrentViewToClipboard() {
    const auto view = currentExportable();
    if (!view) return false;
    QImage image;
    try {
        image = view->image(view->size);
    } catch (const Error& e) {
        if (view->plot) view->plot->replot();
        m_sink->error(tr("Copy failed"), QString::fromStdString(e.what()));
        return false;
    }
    if (view->plot) view->plot->replot();
    QGuiApplication::clipboard()->setImage(image);
    statusBar()->showMessage(tr("Copied the figure to the clipboard") +
                                 reducedScaleNote(rasterPixelScale(view->size, kPngScale)),
                             4000);
    return true;
}

ExportAllJob* MainWindow::exportAllHeads(const QString& folder, ImageFormat format) {
    auto* job = new ExportAllJob(*m_document, folder, format, exportSize(), this);
    connect(job, &ExportAllJob::finished, this,
            [this, job, folder](bool completed, const QString& error) {
                if (!error.isEmpty())
                    m_sink->error(tr("Export failed"), error);
                else if (completed)
                    statusBar()->showMessage(
                        tr("Exported %1 files to %2").arg(job->total()).arg(folder), 8000);
                job->deleteLater();
            });
    QTimer::singleShot(0, job, &ExportAllJob::start);  // callers connect to it first
    return job;
}

}  // namespace qkv::ui
