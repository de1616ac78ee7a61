#include "ui/window/hub_download_panel.h"

#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QtConcurrent>

#include "core/util/error.h"

namespace qkv::ui {
namespace {

// Progress bars hold ints: byte counts are shown in thousandths.
constexpr int kScale = 1000;

int scaled(std::uint64_t done, std::uint64_t total) {
    return total == 0 ? kScale : static_cast<int>(kScale * static_cast<double>(done) / total);
}

QString bytes(std::uint64_t count) {
    return QLocale().formattedDataSize(static_cast<qint64>(count));
}

}  // namespace

HubDownloadPanel::HubDownloadPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QGridLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_what = new QLabel(this);
    m_what->setWordWrap(true);
    m_file = new QProgressBar(this);
    m_total = new QProgressBar(this);
    for (QProgressBar* bar : {m_file, m_total}) bar->setRange(0, kScale);
    m_cancel = new QPushButton(tr("Cancel Download"), this);
    layout->addWidget(m_what, 0, 0, 1, 3);
    layout->addWidget(new QLabel(tr("File:"), this), 1, 0);
    layout->addWidget(m_file, 1, 1);
    layout->addWidget(new QLabel(tr("All:"), this), 2, 0);
    layout->addWidget(m_total, 2, 1);
    layout->addWidget(m_cancel, 1, 2, 2, 1);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_cancelled) *m_cancelled = true;
        m_what->setText(tr("Cancelling…"));
    });
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &HubDownloadPanel::done);
    setVisible(false);
}

HubDownloadPanel::~HubDownloadPanel() { cancelAndWait(); }

void HubDownloadPanel::start(const QString& id, const QString& revision) {
    if (isRunning()) return;
    m_id = id;
    m_cancelled = std::make_shared<std::atomic<bool>>(false);
    m_file->setValue(0);
    m_total->setValue(0);
    m_what->setText(tr("Asking the Hub for %1…").arg(id));
    m_cancel->setEnabled(true);
    setVisible(true);
    QPointer<HubDownloadPanel> self(this);
    const auto cancelled = m_cancelled;
    const std::string model = id.toStdString();
    const std::string rev = revision.isEmpty() ? std::string("main") : revision.toStdString();
    m_watcher.setFuture(QtConcurrent::run([self, cancelled, model, rev]() -> Outcome {
        const DownloadListener listener = [self, cancelled](const DownloadProgress& p) {
            QMetaObject::invokeMethod(
                self,
                [self, p] {
                    if (self) self->show(p);
                },
                Qt::QueuedConnection);
            return !*cancelled;
        };
        try {
            const DownloadResult result =
                downloadModel(model, rev, HubSettings::fromEnvironment(), listener);
            return {QString::fromStdString(result.snapshot.string()), {}};
        } catch (const Cancelled&) {
            return {};
        } catch (const std::exception& e) {
            return {{}, QString::fromStdString(e.what())};
        }
    }));
}

void HubDownloadPanel::cancelAndWait() {
    if (!isRunning()) return;
    *m_cancelled = true;
    m_watcher.waitForFinished();
}

void HubDownloadPanel::show(const DownloadProgress& p) {
    if (!isRunning() || *m_cancelled) return;
    using Stage = DownloadProgress::Stage;
    const QString file = QString::fromStdString(p.file);
    switch (p.stage) {
        case Stage::Listing:
            return;
        case Stage::Verifying:
            m_what->setText(tr("Checking %1's SHA-256 (file %2 of %3)…")
                                .arg(file)
                                .arg(p.fileIndex)
                                .arg(p.fileCount));
            break;
        case Stage::Downloading:
        case Stage::Done:
            m_what->setText(
                tr("Downloading %1 — %2 (file %3 of %4): %5 of %6; all: %7 of %8")
                    .arg(m_id, file)
                    .arg(p.fileIndex)
                    .arg(p.fileCount)
                    .arg(bytes(p.fileDone), bytes(p.fileBytes), bytes(p.done), bytes(p.total)));
            break;
    }
    m_file->setValue(scaled(p.fileDone, p.fileBytes));
    m_total->setValue(scaled(p.done, p.total));
}

void HubDownloadPanel::done() {
    const Outcome outcome = m_watcher.result();
    m_cancel->setEnabled(false);
    if (!outcome.snapshot.isEmpty()) {
        m_what->setText(tr("%1 is in the cache.").arg(m_id));
        m_file->setValue(kScale);
        m_total->setValue(kScale);
        emit finished(m_id, outcome.snapshot);
    } else {
        m_what->setText(outcome.error.isEmpty()
                            ? tr("Download of %1 cancelled; the next try resumes it.").arg(m_id)
                            : outcome.error);
        emit failed(m_id, outcome.error);
    }
}

}  // namespace qkv::ui
