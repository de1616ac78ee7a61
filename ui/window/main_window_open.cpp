// The main window's opening of models (at start-up, from a folder, the Hub or a drop) and of
// training experiments, and the slots that follow a model's loading.
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
#include "ui/window/main_window.h"
#include "ui/window/recent_models.h"
#include "ui/window/window_settings.h"

namespace qkv::ui {

void MainWindow::startup(const QStringList& modelArguments) {
    QString location = modelArguments.value(0);
    // An atlas file (qkvlab stories.atlas) opens in the Atlas tab beside the usual model.
    if (location.endsWith(QStringLiteral(".atlas"), Qt::CaseInsensitive) &&
        QFileInfo(location).isFile()) {
        openAtlas(location);
        location.clear();
    }
    // Token ids belong to the model they were typed for: onto another model they would read
    // other tokens (or none), so the example sentence is shown instead.
    const QStringList recent = RecentModels::list();
    const QString opening = !location.isEmpty() ? location
                            : !recent.isEmpty() ? recent.first()
                                                : defaultModel().value_or(QString());
    QString sentence = settings::kSentence.value();
    const bool otherModelsIds = sentence.trimmed().startsWith(u'#') &&
                                QFileInfo(settings::kSentenceModel.value()) != QFileInfo(opening);
    if (sentence.trimmed().isEmpty() || otherModelsIds) sentence = exampleSentences().value(0);
    m_sentence->editor()->setText(sentence);
    // A session file (the desktop entry passes what was double-clicked); one that cannot be
    // opened was reported, and the usual model opens instead.
    const bool session = isSessionFile(location);
    if (session && openSession(location)) return;
    if (!location.isEmpty() && !session) {
        if (isDownloadableId(location))
            openFromHub(location);
        else
            openModel(location);
    } else if (!recent.isEmpty()) {
        openModel(recent.first());
    } else if (const auto example = defaultModel()) {
        openModel(*example);
    }
}

void MainWindow::openModel(const QString& folder) {
    if (!confirmUnsavedChanges()) return;
    closeSession();  // the session was about the model open before
    closeExperiment();
    m_document->openModel(folder);
}

bool MainWindow::openExperiment(const QString& folder) {
    ExperimentFolder experiment;
    try {
        experiment = readExperimentFolder(folder);
    } catch (const Error& e) {
        m_sink->error(tr("Cannot open the experiment"), QString::fromStdString(e.what()));
        return false;
    }
    settings::kExperimentFolder.setValue(QFileInfo(experiment.folder).absolutePath());
    const qsizetype unread = experiment.runErrors().size();
    statusBar()->showMessage(
        unread == 0
            ? tr("Opened the experiment %1").arg(QDir::toNativeSeparators(experiment.folder))
            : tr("Opened the experiment; %1 of its run logs could not be read").arg(unread),
        6000);
    m_trainingView->showExperiment(std::move(experiment));
    m_closeExperiment->setEnabled(true);
    showTab(Tab::Training);
    showCentralPage();
    return true;
}

void MainWindow::closeExperiment() { m_trainingView->closeExperiment(); }

// A Hub id the cache lacks, which the Hub could provide.
bool MainWindow::isDownloadableId(const QString& location) {
    const std::string text = location.toStdString();
    const HubSettings hub = HubSettings::fromEnvironment();
    return isHubModelId(text) && !QFileInfo::exists(location) && !hub.offline &&
           !findCachedSnapshot(text, "main", hub.cache);
}

void MainWindow::openFromHub(const QString& downloadId) {
    HubModelsDialog dialog(this, m_sink);
    if (!downloadId.isEmpty()) dialog.download(downloadId, true);
    if (dialog.exec() == QDialog::Accepted) openModel(dialog.location());
}

void MainWindow::onModelLoading(const QString& folder) {
    statusBar()->showMessage(tr("Opening %1…").arg(QDir::toNativeSeparators(folder)));
    onBusyChanged(m_document->isBusy());
    showCentralPage();
}

void MainWindow::onModelChanged() {
    const Model& model = *m_document->model();
    const Architecture& c = model.architecture();
    RecentModels::add(QString::fromStdString(model.folder().string()));
    rebuildRecentMenu();
    const QString name = QString::fromStdString(model.name());
    updateWindowTitle();
    m_modelStatus->setText(tr("%1 · %2 · %3 layers × %4 heads · d_model %5")
                               .arg(name, QString::fromStdString(c.family))
                               .arg(c.layers)
                               .arg(c.heads)
                               .arg(c.dModel));
    m_modelStatus->setToolTip(QString::fromStdString(model.folder().string()));
    if (c.notShown.empty()) {
        statusBar()->showMessage(tr("Opened %1").arg(name), 4000);
    } else {  // a multimodal model read as its text model says so where the user looks
        const QString note = QString::fromStdString(c.notShown);
        m_modelStatus->setText(m_modelStatus->text() + tr(" · text only"));
        m_modelStatus->setToolTip(m_modelStatus->toolTip() + QStringLiteral("\n") + note);
        statusBar()->showMessage(tr("Opened %1 — %2").arg(name, note), 15000);
    }
    if (!model.tokenizer())  // said once, inline: the sentence box says what to type instead
        statusBar()->showMessage(tr("Opened %1 without a tokenizer: type token ids after a '#' "
                                    "(%2)")
                                     .arg(name, QString::fromStdString(model.tokenizerError())),
                                 15000);
    onBusyChanged(m_document->isBusy());
    showCentralPage();
    if (m_pendingSession) {
        const Session pending = *m_pendingSession;
        applySession(pending, m_pendingSessionPath);
    }
    if (m_pendingExample) {
        const auto example = std::move(m_pendingExample);
        applyOpenedAtlasExample(*example);
    }
}

void MainWindow::onModelFailed(const QString& folder, const QString& message) {
    m_pendingSession.reset();  // the session's state stays unapplied: nothing changed
    m_pendingExample.reset();
    statusBar()->clearMessage();
    onBusyChanged(m_document->isBusy());
    showCentralPage();
    m_sink->error(tr("Cannot open the model"),
                  tr("%1\n\n%2").arg(QDir::toNativeSeparators(folder), message));
}

void MainWindow::onLoadCancelled(const QString& folder) {
    m_pendingSession.reset();
    m_pendingExample.reset();
    statusBar()->showMessage(tr("Stopped opening %1").arg(QDir::toNativeSeparators(folder)), 6000);
    onBusyChanged(m_document->isBusy());
    showCentralPage();
}

}  // namespace qkv::ui
