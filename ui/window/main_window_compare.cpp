// File ▸ Compare With…: a second checkpoint of the open model (a quantisation against its F16
// file, a GGUF against the folder it came from) run on the same tokens.
#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QStatusBar>

#include "ui/document/lab_document.h"
#include "ui/plot/metric_matrices.h"
#include "ui/support/message_sink.h"
#include "ui/views/overview_view.h"
#include "ui/window/main_window.h"

namespace qkv::ui {

void MainWindow::buildCompareActions(QMenu* file) {
    LabDocument* d = m_document.get();
    QAction* compare = file->addAction(tr("Co&mpare With…"), QKeySequence(tr("Ctrl+Shift+K")), this,
                                       &MainWindow::onCompareWith);
    compare->setToolTip(
        tr("Run the same tokens through a second checkpoint of this model "
           "(e.g. Q4_K_M against F16) and see what changes in every head"));
    compare->setEnabled(false);
    m_stopComparing = file->addAction(tr("S&top Comparing"), this, [this] { compareWith({}); });
    m_stopComparing->setEnabled(false);
    connect(d, &LabDocument::modelChanged, compare, [compare] { compare->setEnabled(true); });
    connect(d, &LabDocument::comparisonChanged, this, [this, d] {
        const QString name = d->comparisonName();
        m_stopComparing->setEnabled(!name.isEmpty());
        if (name.isEmpty()) return;
        statusBar()->showMessage(tr("Comparing with %1").arg(name), 8000);
        m_overviewView->setShowsThumbnails(false);
        m_overviewView->setShownMetric(HeadMetric::AttentionChange);
        showTab(Tab::Overview);
    });
    connect(d, &LabDocument::comparisonFailed, this,
            [this](const QString& location, const QString& message) {
                m_sink->error(tr("Cannot compare the models"),
                              tr("%1\n\n%2").arg(QDir::toNativeSeparators(location), message));
            });
}

void MainWindow::compareWith(const QString& location) { m_document->setComparison(location); }

void MainWindow::onCompareWith() {
    const Model* model = m_document->model();
    if (!model) return;
    const QFileInfo open(QString::fromStdString(model->folder().string()));
    const QString file = QFileDialog::getOpenFileName(
        this,
        tr("Compare with another checkpoint of this model: a GGUF file, or a folder's "
           "config.json"),
        open.absolutePath(),
        tr("Models (*.gguf config.json);;GGUF models (*.gguf);;Model folders (config.json)"));
    if (file.isEmpty()) return;
    const QFileInfo chosen(file);
    compareWith(chosen.fileName() == QStringLiteral("config.json") ? chosen.absolutePath() : file);
}

}  // namespace qkv::ui
