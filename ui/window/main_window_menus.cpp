// MainWindow's menus, actions and their keyboard shortcuts.
#include <QActionGroup>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressDialog>
#include <QStandardPaths>
#include <QStatusBar>

#include "ui/document/document_python_check.h"
#include "ui/document/lab_document.h"
#include "ui/export/export_all_job.h"
#include "ui/plot/head_figures.h"
#include "ui/support/message_sink.h"
#include "ui/support/model_locator.h"
#include "ui/views/heatmap_widget.h"
#include "ui/views/overview_view.h"
#include "ui/window/main_window.h"
#include "ui/window/recent_models.h"
#include "ui/window/window_settings.h"

namespace qkv::ui {
namespace {

QString exportFolder() {
    const QString saved = settings::kExportFolder.value();
    return !saved.isEmpty() && QDir(saved).exists()
               ? saved
               : QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
}

QString safeFileName(QString text) {
    for (QChar& c : text)
        if (!c.isLetterOrNumber() && c != u'-' && c != u'_') c = u'_';
    return text;
}

}  // namespace

void MainWindow::buildMenus() {
    buildFileMenu();
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* python =
        edit->addAction(tr("Copy as &Python"), QKeySequence(tr("Ctrl+Shift+P")), this,
                        [this] { statusBar()->showMessage(copyPythonCheck(*m_document), 8000); });
    python->setObjectName(QStringLiteral("copyAsPython"));
    python->setToolTip(
        tr("A script that recomputes the shown head with Hugging Face transformers"));
    buildViewMenu();
    buildComputeMenu();
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About QKV Lab"), this, [this] {
        QMessageBox::about(
            this, tr("About QKV Lab"),
            tr("<b>QKV Lab</b><p>Why does an attention head need W_Q, W_K and W_V, and what "
               "happens when they are shared? Load a Hugging Face model folder, type a sentence "
               "and inspect every head under the learned and the tied matrices.</p>"));
    });
}

void MainWindow::buildFileMenu() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open Model Folder…"), QKeySequence::Open, this, &MainWindow::onOpen);
    file->addAction(tr("Open &GGUF File…"), QKeySequence(tr("Ctrl+Shift+G")), this,
                    &MainWindow::onOpenGguf);
    file->addAction(tr("Open from &Hugging Face, Ollama, LM Studio…"),
                    QKeySequence(tr("Ctrl+Shift+O")), this, [this] { openFromHub(); });
    m_examplesMenu = file->addMenu(tr("Open &Example"));
    const auto examples = exampleModels();
    for (const ExampleModel& model : examples)
        m_examplesMenu->addAction(model.name, this, [this, f = model.folder] { openModel(f); });
    m_examplesMenu->setEnabled(!examples.empty());
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    buildCompareActions(file);
    file->addSeparator();
    file->addAction(tr("Open E&xperiment…"), QKeySequence(tr("Ctrl+Shift+E")), this,
                    &MainWindow::onOpenExperiment);
    m_closeExperiment =
        file->addAction(tr("C&lose Experiment"), this, &MainWindow::closeExperiment);
    m_closeExperiment->setEnabled(false);
    file->addAction(tr("Open A&tlas…"), QKeySequence(tr("Ctrl+Shift+A")), this,
                    &MainWindow::onOpenAtlas);
    file->addSeparator();
    // Ctrl+O opens a model folder, so a session opens with Ctrl+Alt+O.
    file->addAction(tr("Open Sess&ion…"), QKeySequence(tr("Ctrl+Alt+O")), this,
                    &MainWindow::onOpenSession);
    file->addAction(tr("&Save Session"), QKeySequence::Save, this, &MainWindow::onSaveSession);
    file->addAction(tr("Save Session &As…"), QKeySequence(tr("Ctrl+Shift+S")), this,
                    &MainWindow::onSaveSessionAs);
    file->addSeparator();
    file->addAction(tr("&Export View…"), QKeySequence(tr("Ctrl+E")), this, &MainWindow::onExport);
    // Beside an exported heatmap, the matrix it draws (FIGURE.json, FIGURE.csv).
    m_exportData = file->addAction(tr("Also Save the &Data (JSON, CSV)"));
    m_exportData->setCheckable(true);
    m_exportData->setChecked(settings::kExportData.value());
    connect(m_exportData, &QAction::toggled, this,
            [](bool on) { settings::kExportData.setValue(on); });
    file->addAction(tr("&Copy View Image"), QKeySequence(tr("Ctrl+Shift+C")), this,
                    &MainWindow::copyCurrentViewToClipboard);
    QMenu* all = file->addMenu(tr("Export &All Heads"));
    for (ImageFormat format : {ImageFormat::Png, ImageFormat::Svg, ImageFormat::Pdf})
        all->addAction(tr("as %1…").arg(imageFormatExtension(format).toUpper()), this,
                       [this, format] { onExportAll(format); });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
}

void MainWindow::buildViewMenu() {
    LabDocument* d = m_document.get();
    QMenu* view = menuBar()->addMenu(tr("&View"));
    const QString tabNames[] = {tr("&Head"),    tr("&Compare"),   tr("&Overview"), tr("&Training"),
                                tr("&Neurons"), tr("Q·K &Space"), tr("&Lines"),    tr("&Atlas")};
    for (int i = 0; i < static_cast<int>(std::size(tabNames)); ++i)
        view->addAction(tabNames[i], QKeySequence(tr("Ctrl+%1").arg(i + 1)), this,
                        [this, i] { showTab(static_cast<Tab>(i)); });
    view->addSeparator();
    // Text fields and spin boxes keep their own arrow keys (Qt's shortcut override).
    view->addAction(tr("Previous Head"), QKeySequence(Qt::Key_Left), this,
                    [d] { d->stepHead(-1); });
    view->addAction(tr("Next Head"), QKeySequence(Qt::Key_Right), this, [d] { d->stepHead(1); });
    view->addAction(tr("Previous Layer"), QKeySequence(Qt::Key_PageUp), this,
                    [d] { d->stepLayer(-1); });
    view->addAction(tr("Next Layer"), QKeySequence(Qt::Key_PageDown), this,
                    [d] { d->stepLayer(1); });
    view->addSeparator();
    // The Head and Compare heatmaps; the wheel zooms about the cursor and a drag pans.
    auto zoom = [this](double factor) {
        if (HeatmapWidget* heatmap = currentHeatmap()) heatmap->zoomBy(factor);
    };
    QAction* zoomIn = view->addAction(tr("Zoom &In"), this, [zoom] { zoom(0.5); });
    zoomIn->setShortcuts({QKeySequence(tr("Ctrl+=")), QKeySequence::ZoomIn});
    view->addAction(tr("Zoom O&ut"), QKeySequence::ZoomOut, this, [zoom] { zoom(2.0); });
    view->addAction(tr("Reset &Zoom"), QKeySequence(tr("Ctrl+0")), this, [this] {
        if (HeatmapWidget* heatmap = currentHeatmap()) heatmap->resetZoom();
    });
    view->addSeparator();
    auto* modes = new QActionGroup(this);
    for (HeatmapMode mode : {HeatmapMode::Attention, HeatmapMode::Scores, HeatmapMode::Asymmetry}) {
        QAction* action =
            view->addAction(heatmapModeLabel(mode), this, [d, mode] { d->setMode(mode); });
        action->setCheckable(true);
        action->setChecked(d->mode() == mode);
        action->setShortcut(QKeySequence(tr("Alt+%1").arg(static_cast<int>(mode) + 1)));
        modes->addAction(action);
        connect(d, &LabDocument::modeChanged, action,
                [d, action, mode] { action->setChecked(d->mode() == mode); });
    }
    view->addSeparator();
    // Encoder-decoder models: which attention the views show (Alt+1..3 are the heatmap modes).
    auto* kinds = new QActionGroup(this);
    const QString kindNames[] = {tr("&Encoder Self-Attention"), tr("&Decoder Self-Attention"),
                                 tr("C&ross-Attention")};
    for (int i = 0; i < 3; ++i) {
        const auto kind = static_cast<AttentionKind>(i);
        QAction* action = view->addAction(kindNames[i], QKeySequence(tr("Ctrl+Alt+%1").arg(i + 1)),
                                          this, [d, kind] { d->setAttentionKind(kind); });
        action->setCheckable(true);
        kinds->addAction(action);
        auto update = [d, action, kind] {
            const Model* model = d->model();
            action->setEnabled(model && model->architecture().isEncoderDecoder());
            action->setChecked(d->attentionKind() == kind);
        };
        connect(d, &LabDocument::attentionKindChanged, action, update);
        connect(d, &LabDocument::modelChanged, action, update);
        update();
    }
    view->addSeparator();
    QAction* thumbnails = view->addAction(tr("Overview &Thumbnails"), QKeySequence(tr("Ctrl+T")),
                                          this, [this](bool shown) {
                                              m_overviewView->setShowsThumbnails(shown);
                                              if (shown) showTab(Tab::Overview);
                                          });
    thumbnails->setCheckable(true);
    connect(m_overviewView, &OverviewView::thumbnailsToggled, thumbnails, &QAction::setChecked);
    view->addSeparator();
    auto addMapMenu = [this, d, view](const QString& title, const QStringList& names,
                                      bool diverging) {
        QMenu* menu = view->addMenu(title);
        auto* group = new QActionGroup(menu);
        for (const QString& name : names) {
            QAction* action = menu->addAction(name, this, [d, name, diverging] {
                ColorScheme scheme = d->colorScheme();
                (diverging ? scheme.diverging : scheme.sequential) = name;
                d->setColorScheme(scheme);
            });
            action->setCheckable(true);
            auto isCurrent = [d, name, diverging] {
                return name ==
                       (diverging ? d->colorScheme().diverging : d->colorScheme().sequential);
            };
            action->setChecked(isCurrent());
            connect(d, &LabDocument::colorSchemeChanged, action,
                    [action, isCurrent] { action->setChecked(isCurrent()); });
            group->addAction(action);
        }
    };
    addMapMenu(tr("Colour Map (attention, similarity)"), sequentialMapNames(), false);
    addMapMenu(tr("Colour Map (signed values)"), divergingMapNames(), true);
    view->addSeparator();
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("weightPanelDock")))
        view->addAction(dock->toggleViewAction());
}

void MainWindow::buildComputeMenu() {
    LabDocument* d = m_document.get();
    QMenu* compute = menuBar()->addMenu(tr("&Compute"));
    compute->addAction(tr("&Recompute"), QKeySequence::Refresh, this, [d] { d->recompute(); });
    compute->addAction(tr("&Stop"), QKeySequence(Qt::Key_Escape), this,
                       [d] { d->cancelComputation(); });
    compute->addSeparator();
    // Grouped-query models only: how published figures paired query and key heads.
    QAction* modulo = compute->addAction(
        tr("Published &GQA Pairing (query head h with key head h mod n_kv)"), this,
        [d](bool on) { d->setGqaPairing(on ? GqaPairing::Modulo : GqaPairing::HuggingFace); });
    modulo->setCheckable(true);
    modulo->setToolTip(
        tr("The weight metrics pair query head h with key head h / group, as the "
           "model computes; published GQA figures used h mod n_kv"));
    auto updateModulo = [d, modulo] {
        const Model* model = d->model();
        modulo->setEnabled(model && model->architecture().kvGroup() > 1);
        modulo->setChecked(d->gqaPairing() == GqaPairing::Modulo);
    };
    connect(d, &LabDocument::modelChanged, modulo, updateModulo);
    connect(d, &LabDocument::configChanged, modulo, updateModulo);
    updateModulo();
    compute->addSeparator();
    QMenu* backend = compute->addMenu(tr("&Backend"));
    m_backendGroup = new QActionGroup(this);
    const QString tips[] = {tr("A GPU through Vulkan when one exists, else the CPU"),
                            tr("Eigen + OpenBLAS on the CPU"), tr("Vulkan compute on a GPU")};
    const QString choices[] = {QStringLiteral("auto"), QStringLiteral("cpu"),
                               QStringLiteral("vulkan")};
    for (int i = 0; i < 3; ++i) {
        QAction* action =
            backend->addAction(choices[i], this, [d, c = choices[i]] { d->setBackendChoice(c); });
        action->setCheckable(true);
        action->setData(choices[i]);
        action->setToolTip(tips[i]);
        action->setChecked(choices[i] == d->backendChoice());
        m_backendGroup->addAction(action);
    }
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    const QStringList recent = RecentModels::list();
    for (const QString& folder : recent)
        m_recentMenu->addAction(QDir::toNativeSeparators(folder), this,
                                [this, folder] { openModel(folder); });
    if (!recent.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear List"), this, [this] {
            RecentModels::clear();
            rebuildRecentMenu();
        });
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::onOpen() {
    const QString start = m_document->model()
                              ? QString::fromStdString(m_document->model()->folder().string())
                              : RecentModels::list().value(0, QDir::homePath());
    const QString folder = QFileDialog::getExistingDirectory(
        this, tr("Open a model folder (config.json, model.safetensors, tokenizer files)"), start);
    if (!folder.isEmpty()) openModel(folder);
}

void MainWindow::onOpenGguf() {
    const QString start = RecentModels::list().value(0, QDir::homePath());
    const QString file =
        QFileDialog::getOpenFileName(this, tr("Open a GGUF file (llama.cpp, Ollama, LM Studio)"),
                                     QFileInfo(start).absolutePath(), tr("GGUF models (*.gguf)"));
    if (!file.isEmpty()) openModel(file);
}

void MainWindow::onOpenExperiment() {
    const QString saved = settings::kExperimentFolder.value();
    const QString start = !saved.isEmpty() && QDir(saved).exists() ? saved : QDir::homePath();
    const QString folder = QFileDialog::getExistingDirectory(
        this, tr("Open an experiment folder (summary.json, written by qkvlab-cli experiment)"),
        start);
    if (!folder.isEmpty()) openExperiment(folder);
}

void MainWindow::onExport() {
    const LabDocument& d = *m_document;
    QString base = QStringLiteral("figure");
    if (d.model())
        base = safeFileName(
            QStringLiteral("%1_L%2H%3_%4_%5")
                .arg(QString::fromStdString(d.model()->name()))
                .arg(d.layer())
                .arg(d.head())
                .arg(QString::fromStdString(d.config().name()), heatmapModeName(d.mode())));
    QString filter;
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export the current view"), QDir(exportFolder()).filePath(base + ".png"),
        tr("PNG image (*.png);;SVG vector image (*.svg);;PDF document (*.pdf)"), &filter);
    if (path.isEmpty()) return;
    if (!imageFormatForPath(path))
        path += filter.contains("svg") ? ".svg" : filter.contains("pdf") ? ".pdf" : ".png";
    exportCurrentView(path);
}

void MainWindow::onExportAll(ImageFormat format) {
    const QString folder = QFileDialog::getExistingDirectory(
        this, tr("Export every head into a folder"), exportFolder());
    if (folder.isEmpty()) return;
    settings::kExportFolder.setValue(folder);
    ExportAllJob* job = exportAllHeads(folder, format);
    auto* progress = new QProgressDialog(tr("Exporting every head…"), tr("Cancel"), 0, 1, this);
    progress->setWindowModality(Qt::WindowModal);
    progress->setMinimumDuration(300);
    progress->setAttribute(Qt::WA_DeleteOnClose);
    connect(job, &ExportAllJob::progressChanged, progress, [progress](int done, int total) {
        progress->setMaximum(total);
        progress->setValue(done);
    });
    connect(progress, &QProgressDialog::canceled, job, &ExportAllJob::cancel);
    connect(job, &ExportAllJob::finished, progress, &QProgressDialog::close);
}

void MainWindow::onBackendChanged(const QString& name) {
    const QString choice = m_document->backendChoice();
    m_backendStatus->setText(choice == QLatin1String("auto") ? tr("backend: %1 (auto)").arg(name)
                                                             : tr("backend: %1").arg(name));
    for (QAction* action : m_backendGroup->actions())
        action->setChecked(action->data().toString() == choice);
    settings::kBackend.setValue(choice);
}

void MainWindow::onBackendFailed(const QString& choice, const QString& message) {
    onBackendChanged(m_document->backendName());
    m_sink->error(
        tr("Backend unavailable"),
        tr("The %1 backend cannot be used:\n%2\n\nComputing on %3 instead.")
            .arg(choice, message,
                 m_document->backendName().isEmpty() ? tr("the CPU") : m_document->backendName()));
}

}  // namespace qkv::ui
