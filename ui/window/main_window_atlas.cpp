// The main window's atlas files: File ▸ Open Atlas… into the Atlas tab, and an atlas example
// opened in the Head view (after its model, when another is open).
#include <QDir>
#include <QFileDialog>
#include <QStatusBar>

#include "core/report/atlas_file.h"
#include "ui/document/lab_document.h"
#include "ui/support/message_sink.h"
#include "ui/support/setting.h"
#include "ui/views/atlas_view.h"
#include "ui/window/main_window.h"

namespace qkv::ui {
namespace {

const Setting<QString> kAtlasFile{QStringLiteral("atlas/file"), QString()};

}  // namespace

bool MainWindow::openAtlas(const QString& path) {
    QString error;
    if (!m_atlasView->openAtlas(path, &error)) {
        m_sink->error(tr("Cannot open the atlas"),
                      tr("%1\n\n%2").arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    kAtlasFile.setValue(path);
    showCentralPage();
    showTab(Tab::Atlas);
    return true;
}

void MainWindow::onOpenAtlas() {
    const QString saved = kAtlasFile.value();
    const QString file = QFileDialog::getOpenFileName(
        this, tr("Open an atlas file (written by qkvlab-cli atlas or qkvlab.atlas)"),
        saved.isEmpty() ? QDir::homePath() : QFileInfo(saved).absolutePath(),
        tr("Atlas files (*.atlas *.sqlite *.db);;All files (*)"));
    if (!file.isEmpty()) openAtlas(file);
}

void MainWindow::openAtlasExample(const AtlasExampleTarget& target) {
    const Model* open = m_document->model();
    if (open && !m_document->isLoading() && atlasModelDigest(*open) == target.modelDigest) {
        applyAtlasExample(target);
        return;
    }
    m_pendingExample = std::make_unique<AtlasExampleTarget>(target);
    statusBar()->showMessage(tr("Opening the atlas's model %1…").arg(target.model));
    openModel(target.model);
}

void MainWindow::applyOpenedAtlasExample(const AtlasExampleTarget& target) {
    if (atlasModelDigest(*m_document->model()) == target.modelDigest)
        return applyAtlasExample(target);
    m_sink->error(tr("Another checkpoint"),
                  tr("%1 opened, but its weights are not those the atlas was computed with: "
                     "the example's numbers would differ.")
                      .arg(target.model));
}

// The open model is the atlas's (its digest checked): the example's ids exactly as the atlas
// ran them.
void MainWindow::applyAtlasExample(const AtlasExampleTarget& target) {
    QStringList ids;
    for (int id : target.ids) ids << QString::number(id);
    m_document->setText(QStringLiteral("#") + ids.join(u' '));
    m_document->setHead(target.layer, target.head);
    // Pinned once the sentence's result exists (as a session's pin is).
    m_document->restorePinnedToken(target.query >= 0 ? std::optional<int>(target.query)
                                                     : std::nullopt);
    showTab(Tab::Head);
}

}  // namespace qkv::ui
