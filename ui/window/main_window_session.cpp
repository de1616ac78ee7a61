// MainWindow's sessions: capturing the window's state as a Session, applying one, saving and
// opening *.qkvlab files, the modified marker and the question before unsaved changes are lost.
#include <QAbstractButton>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QStatusBar>
#include <QTabWidget>

#include "core/io/hub_cache.h"
#include "core/util/error.h"
#include "ui/document/lab_document.h"
#include "ui/plot/metric_matrices.h"
#include "ui/support/message_sink.h"
#include "ui/views/compare_view.h"
#include "ui/views/lines_view.h"
#include "ui/views/overview_view.h"
#include "ui/views/space_view.h"
#include "ui/window/main_window.h"
#include "ui/window/window_settings.h"

namespace qkv::ui {
namespace {

QString sessionFilter() { return QObject::tr("QKV Lab session (*.qkvlab)"); }

// The folder a session names, or why there is none (naming what is missing).
struct SessionFolder {
    QString folder;
    QString error;
};

SessionFolder sessionModelFolder(const SessionModel& model) {
    const QFileInfo info(model.folder);
    if (!model.folder.isEmpty() && (info.isDir() || (info.isFile() && info.suffix() == "gguf")))
        return {model.folder, {}};
    if (!model.hubId.isEmpty()) {
        const std::string revision =
            model.revision.isEmpty() ? std::string("main") : model.revision.toStdString();
        if (const auto snapshot = findCachedSnapshot(model.hubId.toStdString(), revision))
            return {QString::fromStdString(snapshot->string()), {}};
        return {{},
                QObject::tr("The session's model %1 (revision %2) is neither at %3 nor in the "
                            "Hugging Face cache. Download it with File ▸ Open from Hugging "
                            "Face… and open the session again.")
                    .arg(model.hubId, QString::fromStdString(revision),
                         QDir::toNativeSeparators(model.folder))};
    }
    return {{},
            QObject::tr("The session's model folder does not exist:\n%1")
                .arg(QDir::toNativeSeparators(model.folder))};
}

bool sameFolder(const QString& a, const QString& b) {
    return !a.isEmpty() && !b.isEmpty() &&
           QFileInfo(a).canonicalFilePath() == QFileInfo(b).canonicalFilePath();
}

}  // namespace

Session MainWindow::currentSession() const {
    const LabDocument& d = *m_document;
    Session s;
    const QString folder = d.isLoading() ? d.loadingFolder() : d.modelFolder();
    // Absolute: a folder given relative to where the app started means nothing elsewhere.
    s.model.folder = folder.isEmpty() ? QString() : QFileInfo(folder).absoluteFilePath();
    if (const auto id = hubIdOfSnapshot(s.model.folder.toStdString())) {
        s.model.hubId = QString::fromStdString(*id);
        s.model.revision = QFileInfo(s.model.folder).fileName();  // the snapshot's commit
    }
    s.text = d.text();
    s.targetText = d.targetTextWritten() ? QString() : d.targetText();
    s.config = d.config();
    s.pairing = d.gqaPairing();
    s.tab = sessionTabNames().value(m_tabs->currentIndex(), sessionTabNames().first());
    s.kind = d.attentionKind();
    s.layer = d.layer();
    s.head = d.head();
    s.mode = d.mode();
    s.overviewMetric = headMetricInfo(m_overviewView->shownMetric()).key;
    s.overviewThumbnails = m_overviewView->showsThumbnails();
    s.compareSharedScale = m_compareView->sharedScale();
    s.spacePooled = m_spaceView->pooled();
    s.linesAllHeads = m_linesView->allHeads();
    s.pinnedToken = d.pinnedToken();
    s.sequentialMap = d.colorScheme().sequential;
    s.divergingMap = d.colorScheme().diverging;
    s.annotations = d.annotations();
    return s;
}

bool MainWindow::openSession(const QString& path) {
    Session session;
    try {
        session = readSessionFile(path);
    } catch (const Error& e) {
        m_sink->error(tr("Cannot open the session"), QString::fromStdString(e.what()));
        return false;
    }
    const SessionFolder model = sessionModelFolder(session.model);
    if (!model.error.isEmpty()) {
        m_sink->error(tr("Cannot open the session"), model.error);
        return false;
    }
    closeExperiment();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (sameFolder(model.folder, m_document->modelFolder()) && !m_document->isLoading()) {
        applySession(session, absolute);
    } else {
        // onModelChanged applies it; if the model fails to open, all stays as it was.
        m_pendingSession = session;
        m_pendingSessionPath = absolute;
        m_document->openModel(model.folder);
    }
    return true;
}

// Applied with the session's model open (the state of another model would be clamped away).
void MainWindow::applySession(const Session& s, const QString& path) {
    LabDocument& d = *m_document;
    m_sessionPath = path;
    m_pendingSession.reset();
    d.setText(s.text);
    d.setTargetText(s.targetText);
    d.setConfig(s.config);
    d.setGqaPairing(s.pairing);
    d.setAttentionKind(s.kind);
    d.setHead(s.layer, s.head);
    d.setMode(s.mode);
    d.setColorScheme({s.sequentialMap, s.divergingMap});
    d.restorePinnedToken(s.pinnedToken);
    d.setAnnotations(s.annotations);
    for (const HeadMetricInfo& info : headMetricInfos())
        if (info.key == s.overviewMetric) m_overviewView->setShownMetric(info.metric);
    m_overviewView->setShowsThumbnails(s.overviewThumbnails);
    m_compareView->setSharedScale(s.compareSharedScale);
    m_spaceView->setPooled(s.spacePooled);
    m_linesView->setAllHeads(s.linesAllHeads);
    m_tabs->setCurrentIndex(std::max<int>(0, sessionTabNames().indexOf(s.tab)));
    // What the window shows now is the file's state (a layer the model lacks was clamped).
    m_savedSession = currentSession();
    updateWindowTitle();
    updateModified();
    statusBar()->showMessage(
        tr("Opened the session %1").arg(QDir::toNativeSeparators(m_sessionPath)), 6000);
}

bool MainWindow::saveSession(const QString& path) {
    if (!m_document->model()) {
        m_sink->error(tr("Nothing to save"), tr("Open a model first: a session starts with one."));
        return false;
    }
    const Session session = currentSession();
    try {
        writeSessionFile(session, path);
    } catch (const Error& e) {
        m_sink->error(tr("Cannot save the session"), QString::fromStdString(e.what()));
        return false;
    }
    m_sessionPath = QFileInfo(path).absoluteFilePath();
    m_savedSession = session;
    m_pendingSession.reset();
    settings::kSessionFolder.setValue(QFileInfo(path).absolutePath());
    updateWindowTitle();
    updateModified();
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(m_sessionPath)), 4000);
    return true;
}

void MainWindow::closeSession() {
    m_sessionPath.clear();
    m_savedSession.reset();
    m_pendingSession.reset();
    updateWindowTitle();
    updateModified();
}

bool MainWindow::confirmUnsavedChanges() {
    if (!isWindowModified()) return true;
    const QString what =
        m_sessionPath.isEmpty()
            ? tr("The names of heads are kept only in a session, which is not saved yet.")
            : tr("The session %1 has changes that are not saved.")
                  .arg(QFileInfo(m_sessionPath).fileName());
    switch (m_sink->askToSave(tr("Save the session?"),
                              what + QStringLiteral("\n\n") + tr("Save them before going on?"))) {
        case UnsavedChoice::Save:
            return onSaveSession();
        case UnsavedChoice::Discard:
            return true;
        case UnsavedChoice::Cancel:
            break;
    }
    return false;
}

void MainWindow::updateModified() {
    // Without a session file only named heads would be lost: nothing else is unsaved.
    const bool modified =
        m_savedSession ? currentSession() != *m_savedSession : !m_document->annotations().empty();
    setWindowModified(modified);
}

void MainWindow::updateWindowTitle() {
    const Model* model = m_document->model();
    const QString modelName = model ? QString::fromStdString(model->name()) : QString();
    QStringList parts;
    if (!m_sessionPath.isEmpty())
        parts << QFileInfo(m_sessionPath).fileName() + QStringLiteral("[*]");
    if (!modelName.isEmpty())
        parts << (m_sessionPath.isEmpty() ? modelName + QStringLiteral("[*]") : modelName);
    parts << tr("QKV Lab");
    setWindowTitle(parts.join(QStringLiteral(" — ")));
}

// Every change a session holds re-evaluates the marker: the document's signals, the tabs, and
// the views' own check boxes and combo boxes (overview metric, thumbnails, shared scale, ...).
void MainWindow::trackSessionChanges() {
    LabDocument* d = m_document.get();
    for (auto signal : {&LabDocument::textChanged, &LabDocument::targetTextChanged})
        connect(d, signal, this, &MainWindow::updateModified);
    for (auto signal : {&LabDocument::configChanged, &LabDocument::attentionKindChanged,
                        &LabDocument::modeChanged, &LabDocument::pinnedTokenChanged,
                        &LabDocument::colorSchemeChanged, &LabDocument::annotationsChanged,
                        &LabDocument::modelChanged})
        connect(d, signal, this, &MainWindow::updateModified);
    connect(d, &LabDocument::headChanged, this, &MainWindow::updateModified);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::updateModified);
    for (QAbstractButton* button : m_tabs->findChildren<QAbstractButton*>())
        if (button->isCheckable())
            connect(button, &QAbstractButton::toggled, this, &MainWindow::updateModified);
    for (QComboBox* box : m_tabs->findChildren<QComboBox*>())
        connect(box, &QComboBox::currentIndexChanged, this, &MainWindow::updateModified);
}

bool MainWindow::onSaveSession() {
    return m_sessionPath.isEmpty() ? onSaveSessionAs() : saveSession(m_sessionPath);
}

bool MainWindow::onSaveSessionAs() {
    QString start = m_sessionPath;
    if (start.isEmpty()) {
        const QString saved = settings::kSessionFolder.value();
        const QString folder = !saved.isEmpty() && QDir(saved).exists() ? saved : QDir::homePath();
        const QString name = m_document->model()
                                 ? QString::fromStdString(m_document->model()->name())
                                 : QStringLiteral("session");
        start = QDir(folder).filePath(name + u'.' + kSessionSuffix);
    }
    QString path =
        QFileDialog::getSaveFileName(this, tr("Save the session"), start, sessionFilter());
    if (path.isEmpty()) return false;
    if (QFileInfo(path).suffix().isEmpty()) path += u'.' + kSessionSuffix;
    return saveSession(path);
}

void MainWindow::onOpenSession() {
    if (!confirmUnsavedChanges()) return;
    const QString saved = settings::kSessionFolder.value();
    const QString start = !m_sessionPath.isEmpty() ? QFileInfo(m_sessionPath).path()
                          : !saved.isEmpty() && QDir(saved).exists() ? saved
                                                                     : QDir::homePath();
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open a session"), start, sessionFilter());
    if (path.isEmpty()) return;
    if (openSession(path)) settings::kSessionFolder.setValue(QFileInfo(path).absolutePath());
}

}  // namespace qkv::ui
