#pragma once
// "Export all heads": one image per head (the current view mode and configuration) plus
// metrics.json, into a folder. Drawing needs the GUI thread, so the job renders one head per
// event-loop turn: the window stays responsive, progress is reported, and cancel stops between
// heads. Every file is written atomically, so a failure leaves no half-written file.
#include <QObject>
#include <QSize>
#include <QString>
#include <QTimer>
#include <memory>

#include "ui/compute/compute_types.h"
#include "ui/export/figure_export.h"
#include "ui/export/figure_provenance.h"

class QCustomPlot;

namespace qkv::ui {

class HeatmapFigure;
class LabDocument;

class ExportAllJob : public QObject {
    Q_OBJECT
  public:
    ExportAllJob(LabDocument& document, QString folder, ImageFormat format, QSize size,
                 QObject* parent = nullptr);
    ~ExportAllJob() override;

    void start();
    void cancel();
    int total() const { return m_total; }
    // "layer02_head05.png"; "cross_layer02_head05.png" for an encoder-decoder's cross-attention
    // ("decoder_…" for its decoder's self-attention).
    static QString fileName(int layer, int head, ImageFormat format,
                            AttentionKind kind = AttentionKind::Self);

  signals:
    void progressChanged(int done, int total);
    // completed: every file written. Otherwise `error` says why, or is empty when cancelled.
    void finished(bool completed, QString error);

  private:
    void onDocumentUpdated();
    void renderNext();
    void writeMetrics();
    void finish(bool completed, const QString& error);

    LabDocument& m_document;
    QString m_folder;
    ImageFormat m_format;
    QSize m_size;
    TraceSnapshotPtr m_snapshot;
    MetricsSnapshotPtr m_metrics;
    FigureProvenance m_provenance;  // the document's; each image adds its layer and head
    QCustomPlot* m_plot;
    std::unique_ptr<HeatmapFigure> m_figure;
    QTimer m_tick;
    int m_next = 0;
    int m_total = 0;
    bool m_running = false;
    bool m_waiting = false;
    bool m_done = false;
};

}  // namespace qkv::ui
