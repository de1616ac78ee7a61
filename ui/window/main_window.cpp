// The main window: layout and status bar, settings, the slots that follow the document (model
// loading, snapshots, errors) and drops; mostly one short slot per document signal, each view
// doing its own drawing. The menus are built in main_window_menus.cpp, models and experiments
// opened in main_window_open.cpp, sessions handled in main_window_session.cpp, the current view
// exported in main_window_export.cpp.
#include "ui/window/main_window.h"

#include <qcustomplot.h>

#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMimeData>
#include <QProgressBar>
#include <QScrollArea>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "core/hub/hub_settings.h"
#include "core/io/hub_cache.h"
#include "core/util/error.h"
#include "ui/document/lab_document.h"
#include "ui/support/eliding_label.h"
#include "ui/support/message_sink.h"
#include "ui/support/model_locator.h"
#include "ui/support/window_shortcuts.h"
#include "ui/training/experiment_folder.h"
#include "ui/views/atlas_view.h"
#include "ui/views/compare_view.h"
#include "ui/views/config_panel.h"
#include "ui/views/head_picker.h"
#include "ui/views/head_view.h"
#include "ui/views/heatmap_widget.h"
#include "ui/views/lines_view.h"
#include "ui/views/neuron_view.h"
#include "ui/views/overview_view.h"
#include "ui/views/sentence_bar.h"
#include "ui/views/space_view.h"
#include "ui/views/token_chips.h"
#include "ui/views/training_view.h"
#include "ui/views/weight_panel.h"
#include "ui/window/empty_state.h"
#include "ui/window/hub_models_dialog.h"
#include "ui/window/recent_models.h"
#include "ui/window/window_settings.h"

namespace qkv::ui {
namespace {

constexpr QSize kDefaultWindowSize(1400, 900);
constexpr int kSentenceSaveDelayMs = 1000;

std::optional<QString> droppedSession(const QMimeData* mime) {
    if (!mime || !mime->hasUrls()) return std::nullopt;
    for (const QUrl& url : mime->urls())
        if (url.isLocalFile() && isSessionFile(url.toLocalFile())) return url.toLocalFile();
    return std::nullopt;
}

std::optional<QString> droppedFolder(const QMimeData* mime) {
    if (!mime || !mime->hasUrls()) return std::nullopt;
    for (const QUrl& url : mime->urls()) {
        if (!url.isLocalFile()) continue;
        const QFileInfo info(url.toLocalFile());
        if (info.isDir()) return info.absoluteFilePath();
        if (info.isFile() && info.suffix() == QStringLiteral("gguf"))
            return info.absoluteFilePath();             // a GGUF file is a model of its own
        if (info.isFile()) return info.absolutePath();  // a file inside the model folder
    }
    return std::nullopt;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_document(std::make_unique<LabDocument>()),
      m_dialogs(std::make_unique<DialogMessageSink>(this)),
      m_sink(m_dialogs.get()) {
    setWindowTitle(tr("QKV Lab"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/qkvlab.svg")));
    setAcceptDrops(true);
    resize(kDefaultWindowSize);
    restoreSettings();
    buildLayout();
    buildStatusBar();
    buildMenus();
    for (QWidget* field : {static_cast<QWidget*>(m_sentence->editor()),
                           static_cast<QWidget*>(m_sentence->targetEditor())})
        WindowShortcuts::passOn(field, this);

    LabDocument* d = m_document.get();
    connect(d, &LabDocument::modelLoading, this, &MainWindow::onModelLoading);
    connect(d, &LabDocument::modelChanged, this, &MainWindow::onModelChanged);
    connect(d, &LabDocument::modelFailed, this, &MainWindow::onModelFailed);
    connect(d, &LabDocument::loadCancelled, this, &MainWindow::onLoadCancelled);
    connect(d, &LabDocument::snapshotChanged, this, &MainWindow::onSnapshotChanged);
    connect(d, &LabDocument::busyChanged, this, &MainWindow::onBusyChanged);
    connect(d, &LabDocument::progressChanged, this, &MainWindow::onProgress);
    connect(d, &LabDocument::backendChanged, this, &MainWindow::onBackendChanged);
    connect(d, &LabDocument::backendFailed, this, &MainWindow::onBackendFailed);
    connect(d, &LabDocument::computeFailed, this, &MainWindow::onComputeFailed);
    // Typing would otherwise rewrite the settings file at every keystroke, on this thread.
    m_sentenceSave.setSingleShot(true);
    m_sentenceSave.setInterval(kSentenceSaveDelayMs);
    connect(&m_sentenceSave, &QTimer::timeout, this, &MainWindow::saveSentence);
    connect(d, &LabDocument::textChanged, &m_sentenceSave, qOverload<>(&QTimer::start));
    connect(d, &LabDocument::configChanged, this, [d] {
        settings::kConfig.setValue(QString::fromStdString(d->config().name()));
        settings::kScaleOutside.setValue(d->config().scaleOutside);
        settings::kMaskSelf.setValue(d->config().maskSelf);
    });
    connect(d, &LabDocument::modeChanged, this,
            [d] { settings::kMode.setValue(heatmapModeName(d->mode())); });
    connect(d, &LabDocument::colorSchemeChanged, this, [d] {
        settings::kSequentialMap.setValue(d->colorScheme().sequential);
        settings::kDivergingMap.setValue(d->colorScheme().diverging);
    });
    trackSessionChanges();
    showCentralPage();
}

MainWindow::~MainWindow() {
    if (m_sentenceSave.isActive()) saveSentence();
}

void MainWindow::saveSentence() {
    m_sentenceSave.stop();
    settings::kSentence.setValue(m_document->text());
    if (const Model* model = m_document->model())
        settings::kSentenceModel.setValue(QString::fromStdString(model->folder().string()));
}

void MainWindow::setMessageSink(MessageSink* sink) { m_sink = sink ? sink : m_dialogs.get(); }

void MainWindow::restoreSettings() {
    LabDocument& d = *m_document;
    try {
        WConfiguration config = WConfiguration::parse(settings::kConfig.value().toStdString());
        config.scaleOutside = settings::kScaleOutside.value();
        config.maskSelf = settings::kMaskSelf.value();
        d.setConfig(config);
    } catch (const Error&) {
        // A setting from another version: keep the default configuration.
    }
    d.setMode(parseHeatmapMode(settings::kMode.value()).value_or(HeatmapMode::Attention));
    d.setColorScheme({settings::kSequentialMap.value(), settings::kDivergingMap.value()});
    if (settings::kBackend.value() != d.backendChoice())
        d.setBackendChoice(settings::kBackend.value());
    if (const QByteArray geometry = settings::kGeometry.value(); !geometry.isEmpty())
        restoreGeometry(geometry);
}

void MainWindow::buildLayout() {
    LabDocument& d = *m_document;
    m_pages = new QStackedWidget(this);
    m_emptyState = new EmptyState(m_pages);
    connect(m_emptyState, &EmptyState::openRequested, this, &MainWindow::onOpen);
    connect(m_emptyState, &EmptyState::modelChosen, this, &MainWindow::openModel);
    m_pages->addWidget(m_emptyState);

    auto* workspace = new QWidget(m_pages);
    auto* layout = new QVBoxLayout(workspace);
    layout->setContentsMargins(10, 8, 10, 4);
    layout->setSpacing(6);
    m_sentence = new SentenceBar(d, workspace);
    m_configPanel = new ConfigPanel(d, workspace);
    m_chips = new TokenChips(d, workspace);
    m_headPicker = new HeadPicker(d, workspace);
    layout->addWidget(m_sentence);
    layout->addWidget(m_configPanel);
    layout->addWidget(m_chips);
    layout->addWidget(m_headPicker);

    m_tabs = new QTabWidget(workspace);
    m_tabs->setDocumentMode(true);
    m_headView = new HeadView(d, m_tabs);
    m_compareView = new CompareView(d, m_tabs);
    m_overviewView = new OverviewView(d, m_tabs);
    m_trainingView = new TrainingView(d, m_tabs);
    m_neuronView = new NeuronView(d, m_tabs);
    m_spaceView = new SpaceView(d, m_tabs);
    m_linesView = new LinesView(d, m_tabs);
    m_atlasView = new AtlasView(d, m_tabs);
    m_tabs->addTab(m_headView, tr("Head"));
    m_tabs->addTab(m_compareView, tr("Compare"));
    m_tabs->addTab(m_overviewView, tr("Overview"));
    m_tabs->addTab(m_trainingView, tr("Training"));
    m_tabs->addTab(m_neuronView, tr("Neurons"));
    m_tabs->addTab(m_spaceView, tr("Q·K space"));
    m_tabs->addTab(m_linesView, tr("Lines"));
    m_tabs->addTab(m_atlasView, tr("Atlas"));
    m_tabs->setCurrentIndex(std::clamp(settings::kTab.value(), 0, m_tabs->count() - 1));
    connect(m_tabs, &QTabWidget::currentChanged, this,
            [](int index) { settings::kTab.setValue(index); });
    connect(m_overviewView, &OverviewView::headActivated, this, [this] { showTab(Tab::Head); });
    connect(m_trainingView, &TrainingView::openModelRequested, this, &MainWindow::openModel);
    connect(m_atlasView, &AtlasView::openRequested, this, &MainWindow::onOpenAtlas);
    connect(m_atlasView, &AtlasView::exampleActivated, this, &MainWindow::openAtlasExample);
    connect(m_trainingView, &TrainingView::experimentClosed, this, [this] {
        if (m_closeExperiment) m_closeExperiment->setEnabled(false);
        showCentralPage();
    });
    layout->addWidget(m_tabs, 1);
    // In a window smaller than the workspace's minimum (control rows wrapped onto more lines) it
    // scrolls: nothing is squeezed below its size or drawn over its neighbour.
    m_workspaceScroll = new QScrollArea(m_pages);
    m_workspaceScroll->setObjectName(QStringLiteral("workspaceScroll"));
    m_workspaceScroll->setWidget(workspace);
    m_workspaceScroll->setWidgetResizable(true);
    m_workspaceScroll->setFrameShape(QFrame::NoFrame);
    m_pages->addWidget(m_workspaceScroll);
    setCentralWidget(m_pages);

    m_weightPanel = new WeightPanel(d);
    auto* scroll = new QScrollArea;
    scroll->setWidget(m_weightPanel);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* dock = m_detailsDock = new QDockWidget(tr("Head details"), this);
    dock->setObjectName(QStringLiteral("weightPanelDock"));
    dock->setWidget(scroll);
    dock->setMinimumWidth(200);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    if (const QByteArray state = settings::kWindowState.value(); !state.isEmpty())
        restoreState(state);
}

// A narrow window narrows the details dock, down to its minimum, before the workspace would
// scroll sideways.
void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    QTimer::singleShot(0, this, &MainWindow::fitDetailsDock);  // once the layout has the size
}

void MainWindow::fitDetailsDock() {
    if (!m_detailsDock || !m_detailsDock->isVisible() || m_detailsDock->isFloating() ||
        m_pages->currentWidget() != m_workspaceScroll || !m_workspaceScroll->isVisible())
        return;
    const int spare = m_workspaceScroll->viewport()->width() -
                      m_workspaceScroll->widget()->minimumSizeHint().width();
    const int dock = m_detailsDock->width();
    if (spare < 0 && dock > m_detailsDock->minimumWidth())
        resizeDocks({m_detailsDock}, {std::max(m_detailsDock->minimumWidth(), dock + spare)},
                    Qt::Horizontal);
}

void MainWindow::buildStatusBar() {
    auto field = [this](const QString& name) {
        QLabel* label = new ElidingLabel(this);  // a narrow window cuts it, not the reverse
        label->setObjectName(name);
        label->setContentsMargins(6, 0, 6, 0);
        statusBar()->addPermanentWidget(label);
        return label;
    };
    m_busy = new QProgressBar(this);
    m_busy->setRange(0, 0);        // a busy indicator until a computation reports its layers
    m_busy->setMaximumWidth(220);  // room for "analysis: layer 32 of 32"
    m_busy->setMaximumHeight(16);
    m_busy->hide();
    statusBar()->addPermanentWidget(m_busy);
    m_modelStatus = field(QStringLiteral("model"));
    m_tokenStatus = field(QStringLiteral("tokens"));
    m_backendStatus = field(QStringLiteral("backend"));
    m_timeStatus = field(QStringLiteral("time"));
    m_modelStatus->setText(tr("no model"));
}

QString MainWindow::statusField(const QString& name) const {
    const auto* label = statusBar()->findChild<QLabel*>(name);
    return label ? label->text() : QString();
}

void MainWindow::showCentralPage() {
    // An experiment or an atlas needs no model: its page is shown without one.
    const bool empty = !m_document->model() && !m_document->isLoading() &&
                       !m_trainingView->isShowingExperiment() && !m_atlasView->hasAtlas();
    m_pages->setCurrentIndex(empty ? 0 : 1);
    if (empty) m_emptyState->refresh();
}

void MainWindow::onSnapshotChanged() {
    const auto snapshot = m_document->snapshot();
    if (!snapshot) {
        m_tokenStatus->clear();
        return;
    }
    // A result replaces the error of an earlier sentence still in the status bar.
    if (!m_computeError.isEmpty() && statusBar()->currentMessage() == m_computeError)
        statusBar()->clearMessage();
    m_computeError.clear();
    const int shown = static_cast<int>(snapshot->tokens.size());
    if (snapshot->truncatedFrom) {
        m_tokenStatus->setText(
            tr("%1 tokens (%2 dropped)").arg(shown).arg(*snapshot->truncatedFrom - shown));
        statusBar()->showMessage(tr("The sentence is longer than the model's context: only its "
                                    "first %1 of %2 tokens are analysed.")
                                     .arg(shown)
                                     .arg(*snapshot->truncatedFrom),
                                 10000);
    } else {
        m_tokenStatus->setText(shown == 1 ? tr("1 token") : tr("%1 tokens").arg(shown));
    }
    m_timeStatus->setText(tr("computed in %1 ms at %2")
                              .arg(snapshot->milliseconds, 0, 'f', 1)
                              .arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss"))));
}

void MainWindow::onBusyChanged(bool busy) {
    if (!busy) m_busy->setRange(0, 0);  // the next computation starts as a busy indicator
    m_busy->setVisible(busy || m_document->isLoading());
}

void MainWindow::onProgress(const QString& stage, int done, int total) {
    m_busy->setRange(0, total);
    m_busy->setValue(done);
    m_busy->setFormat(stage == QStringLiteral("forward") ? tr("forward: layer %v of %m")
                      : stage == QStringLiteral("round trip")
                          ? tr("copying scores: W_U W_E, vocabulary block %v of %m")
                          : tr("analysis: layer %v of %m"));
    m_busy->setToolTip(m_busy->text());
    // The weight analysis goes on after the heatmap is shown: the bar stays until it is done.
    m_busy->setVisible(done < total || m_document->isBusy() || m_document->isLoading());
    if (done == total && !m_document->isBusy()) m_busy->setRange(0, 0);
}

void MainWindow::onComputeFailed(const QString& message) {
    // An emptied sentence box is no error: the views say what to type.
    if (m_document->text().trimmed().isEmpty()) return;
    m_computeError = tr("Could not analyse the sentence: %1").arg(message);
    statusBar()->showMessage(m_computeError, 10000);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!confirmUnsavedChanges()) {
        event->ignore();
        return;
    }
    saveSentence();
    settings::kGeometry.setValue(saveGeometry());
    settings::kWindowState.setValue(saveState());
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (droppedSession(event->mimeData()) || droppedFolder(event->mimeData()))
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    if (const auto session = droppedSession(event->mimeData())) {
        event->acceptProposedAction();
        if (confirmUnsavedChanges()) openSession(*session);
    } else if (const auto folder = droppedFolder(event->mimeData())) {
        event->acceptProposedAction();
        openModel(*folder);
    }
}

void MainWindow::showTab(Tab tab) { m_tabs->setCurrentIndex(static_cast<int>(tab)); }

MainWindow::Tab MainWindow::currentTab() const { return static_cast<Tab>(m_tabs->currentIndex()); }

}  // namespace qkv::ui
