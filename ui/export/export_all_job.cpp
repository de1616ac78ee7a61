#include "ui/export/export_all_job.h"

#include <qcustomplot.h>

#include <QDir>
#include <nlohmann/json.hpp>

#include "core/report/json_report.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "ui/document/lab_document.h"
#include "ui/export/document_provenance.h"
#include "ui/export/plot_provenance.h"
#include "ui/plot/head_figures.h"

namespace qkv::ui {

ExportAllJob::ExportAllJob(LabDocument& document, QString folder, ImageFormat format, QSize size,
                           QObject* parent)
    : QObject(parent),
      m_document(document),
      m_folder(std::move(folder)),
      m_format(format),
      m_size(size),
      m_plot(new QCustomPlot) {
    m_plot->resize(size);
    m_figure = std::make_unique<HeatmapFigure>(m_plot);
    m_tick.setInterval(0);
    connect(&m_tick, &QTimer::timeout, this, &ExportAllJob::renderNext);
}

ExportAllJob::~ExportAllJob() {
    m_figure.reset();
    delete m_plot;
}

QString ExportAllJob::fileName(int layer, int head, ImageFormat format, AttentionKind kind) {
    const QString prefix = kind == AttentionKind::Cross         ? QStringLiteral("cross_")
                           : kind == AttentionKind::DecoderSelf ? QStringLiteral("decoder_")
                                                                : QString();
    return prefix + QStringLiteral("layer%1_head%2.%3")
                        .arg(layer, 2, 10, QChar('0'))
                        .arg(head, 2, 10, QChar('0'))
                        .arg(imageFormatExtension(format));
}

void ExportAllJob::start() {
    const Model* model = m_document.model();
    if (!model || !m_document.snapshot()) {
        finish(false, tr("There is nothing to export yet: open a model and type a sentence."));
        return;
    }
    if (!QDir().mkpath(m_folder)) {
        finish(false, tr("Cannot create the folder %1").arg(m_folder));
        return;
    }
    m_running = true;
    const Architecture shown = m_document.shownArchitecture();  // the shown attention's stack
    m_total = shown.layers * shown.heads + 1;
    emit progressChanged(0, m_total);
    connect(&m_document, &LabDocument::metricsChanged, this, &ExportAllJob::onDocumentUpdated);
    connect(&m_document, &LabDocument::computeFailed, this,
            [this](const QString& message) { finish(false, message); });
    const auto snapshot = m_document.snapshot();
    const auto metrics = m_document.metrics();
    if (snapshot->capturesAll() && metrics && metrics->sequence == snapshot->sequence) {
        onDocumentUpdated();
    } else {
        m_waiting = true;
        m_document.computeAllHeads();  // long sentences keep only the shown head by default
    }
}

void ExportAllJob::onDocumentUpdated() {
    if (!m_running || m_snapshot) return;
    const auto snapshot = m_document.snapshot();
    const auto metrics = m_document.metrics();
    if (!snapshot || !snapshot->capturesAll() || !metrics ||
        metrics->sequence != snapshot->sequence)
        return;
    m_snapshot = snapshot;
    m_metrics = metrics;
    m_provenance = documentProvenance(m_document, QStringLiteral("head"), false);
    m_waiting = false;
    m_tick.start();
}

void ExportAllJob::cancel() {
    if (m_waiting) m_document.cancelComputation();
    finish(false, QString());
}

void ExportAllJob::renderNext() {
    if (!m_running) return;
    const int heads = m_document.shownArchitecture().heads;
    try {
        if (m_next == m_total - 1) {
            writeMetrics();
            ++m_next;
            emit progressChanged(m_next, m_total);
            finish(true, QString());
            return;
        }
        const int layer = m_next / heads;
        HeadFigureInput input = headFigureInput(*m_snapshot, layer, m_next % heads,
                                                m_document.mode(), m_document.shownMask(layer));
        input.layerKind = m_document.shownLayerKind(layer);
        m_figure->setColorScheme(m_document.colorScheme());
        m_figure->show(headFigure(input));
        FigureProvenance provenance = m_provenance;
        provenance.layer = input.layer;
        provenance.head = input.head;
        setPlotProvenance(m_plot, provenance);
        exportFigure(
            *m_figure,
            QDir(m_folder).filePath(fileName(input.layer, input.head, m_format, m_snapshot->kind)),
            m_size);
        ++m_next;
        emit progressChanged(m_next, m_total);
    } catch (const Error& e) {
        finish(false, QString::fromStdString(e.what()));
    }
}

void ExportAllJob::writeMetrics() {
    const Model& model = *m_document.model();
    nlohmann::json doc;
    doc["model"] = model.name();
    doc["config"] = m_snapshot->config.name();
    doc["options"] = {{"scale_outside", m_snapshot->config.scaleOutside},
                      {"mask_self", m_snapshot->config.maskSelf}};
    doc["view"] = heatmapModeName(m_document.mode()).toStdString();
    doc["text"] = m_snapshot->text.toStdString();
    nlohmann::json tokens = nlohmann::json::array();
    nlohmann::json ids = nlohmann::json::array();
    for (const ShownToken& t : m_snapshot->tokens) {
        tokens.push_back(t.piece.toStdString());
        ids.push_back(t.id);
    }
    doc["tokens"] = tokens;
    doc["ids"] = ids;
    if (m_snapshot->truncatedFrom) doc["truncated_from"] = *m_snapshot->truncatedFrom;
    doc["metrics"] = metricsJson(*m_metrics->metrics);
    writeFileAtomically(QDir(m_folder).filePath(QStringLiteral("metrics.json")).toStdString(),
                        doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

void ExportAllJob::finish(bool completed, const QString& error) {
    if (m_done) return;
    m_done = true;
    m_running = false;
    m_waiting = false;
    m_tick.stop();
    disconnect(&m_document, nullptr, this, nullptr);
    emit finished(completed, error);
}

}  // namespace qkv::ui
