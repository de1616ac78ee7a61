#include "ui/training/variant_worker.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QStringList>
#include <algorithm>

#include "core/util/error.h"
#include "ui/compute/thread_handoff.h"
#include "ui/compute/token_list.h"

namespace qkv::ui {
namespace {

// Training rewrites the checkpoint (by renaming a new file over it): a changed listing means
// the model must be opened again.
QString folderSignature(const QString& folder) {
    QStringList parts;
    for (const QFileInfo& file : QDir(folder).entryInfoList(QDir::Files, QDir::Name))
        parts << QStringLiteral("%1:%2:%3")
                     .arg(file.fileName())
                     .arg(file.size())
                     .arg(file.lastModified().toMSecsSinceEpoch());
    return parts.join(u'|');
}

}  // namespace

QStringList VariantAttention::labels() const {
    QStringList out;
    for (const ShownToken& t : tokens) out << t.label;
    return out;
}

VariantWorker::VariantWorker(const LatestRequest& requests) : m_requests(requests) {
    qRegisterMetaType<VariantSnapshotPtr>();
}

// The forward passes refer to their models and to the backend: they go first.
VariantWorker::~VariantWorker() { m_models.clear(); }

bool VariantWorker::isStale(const VariantRequest& request) const {
    return m_requests.isStale(request.sequence, request.cancel.get());
}

VariantWorker::OpenModel& VariantWorker::open(const QString& folder) {
    const QString signature = folderSignature(folder);
    auto found = m_models.find(folder);
    if (found != m_models.end() && found->second.signature == signature) return found->second;
    if (!m_backend) m_backend = createCpuBackend();
    OpenModel opened;
    opened.signature = signature;
    opened.model = Model::open(folder.toStdString());
    opened.forward = std::make_unique<ForwardPass>(*opened.model, *m_backend);
    return m_models.insert_or_assign(folder, std::move(opened)).first->second;
}

VariantAttention VariantWorker::run(const VariantFolder& variant, const VariantRequest& request) {
    VariantAttention out;
    out.variant = variant;
    try {
        OpenModel& opened = open(variant.folder);
        const Architecture& config = opened.model->architecture();
        out.causal = config.causal;
        if (request.layer >= config.layers || request.head >= config.heads)
            throw Error(QStringLiteral("it has %1 layers × %2 heads")
                            .arg(config.layers)
                            .arg(config.heads)
                            .toStdString());
        TokenizedText tokenized = tokenizeForModel(*opened.model, request.text);
        if (tokenized.tokens.empty()) throw Error("the sentence gives no tokens");
        out.tokens = std::move(tokenized.tokens);
        out.truncatedFrom = tokenized.truncatedFrom;
        ForwardRequest forward;
        for (const ShownToken& t : out.tokens) forward.ids.push_back(t.id);
        forward.logits = LogitsMode::None;
        forward.capture.layer = request.layer;
        forward.capture.head = request.head;
        forward.cancel = request.cancel.get();
        out.trace = std::make_shared<const AttentionTrace>(opened.forward->run(forward).trace);
    } catch (const Cancelled&) {
        throw;
    } catch (const Error& e) {
        out.error = QString::fromStdString(e.what());
        m_models.erase(variant.folder);  // open it afresh next time (it may be mid-checkpoint)
    } catch (const std::bad_alloc&) {
        out.error = QStringLiteral("out of memory");
    }
    return out;
}

void VariantWorker::compute(const VariantRequest& request) {
    if (isStale(request)) return;
    QElapsedTimer timer;
    timer.start();
    // Models of folders no longer asked about are closed.
    std::erase_if(m_models, [&](const auto& entry) {
        return std::none_of(request.variants.begin(), request.variants.end(),
                            [&](const VariantFolder& v) { return v.folder == entry.first; });
    });
    auto snapshot = std::make_shared<VariantSnapshot>();
    snapshot->sequence = request.sequence;
    snapshot->text = request.text;
    snapshot->layer = request.layer;
    snapshot->head = request.head;
    try {
        for (const VariantFolder& variant : request.variants) {
            if (isStale(request)) return;
            snapshot->variants.push_back(run(variant, request));
        }
    } catch (const Cancelled&) {
        return;  // superseded by a newer request: nothing to report
    }
    snapshot->milliseconds = timer.nsecsElapsed() / 1e6;
    handOver(snapshot.get());  // read by the GUI thread (thread_handoff.h)
    emit ready(snapshot);
}

}  // namespace qkv::ui
