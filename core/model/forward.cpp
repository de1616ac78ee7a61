#include "core/model/forward.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

#include "core/backend/cpu_attention.h"
#include "core/model/layer_runner.h"
#include "core/model/relative_position.h"
#include "core/model/residual_streams.h"
#include "core/util/memory.h"

namespace qkv {
namespace {

// The scaled token embeddings of the tokens from `first` on, gathered on the host from the
// mapped table: token width wide.
RowMatrixXf tokenRows(const ModelWeights& w, const Architecture& c, const std::vector<int>& ids,
                      int first) {
    const int n = static_cast<int>(ids.size()) - first, width = c.tokenWidth();
    const MatrixView& e = w.tokenEmbedding;
    RowMatrixXf x(n, width);
    for (int row = 0; row < n; ++row) {
        const int id = ids[first + row];
        if (e.colStride == 1)  // the row in one run (a quantised row decodes each block once)
            e.widenRun(static_cast<std::ptrdiff_t>(id) * e.rowStride, width, &x(row, 0));
        else
            for (int j = 0; j < width; ++j) x(row, j) = e.at(id, j);
        x.row(row) *= c.embeddingScale;
    }
    return x;
}

// Adds the position and token-type rows of the tokens from `first` on to x (d_model wide).
void addPositionRows(RowMatrixXf& x, const ModelWeights& w, const MatrixView& positions,
                     const Architecture& c, const std::vector<int>& tokenTypes, int first) {
    for (Eigen::Index row = 0; row < x.rows(); ++row) {
        const int i = first + static_cast<int>(row);
        const int type = tokenTypes.empty() ? 0 : tokenTypes[i];
        for (int j = 0; j < c.dModel; ++j) {
            if (!positions.empty()) x(row, j) += positions.at(i + c.positionOffset, j);
            if (!w.tokenTypeEmbedding.empty()) x(row, j) += w.tokenTypeEmbedding.at(type, j);
        }
    }
}

int capturedHeads(const Architecture& c, const CaptureSelection& capture) {
    if (!capture.scores && !capture.probabilities) return 0;
    int count = 0;
    for (int l = 0; l < c.layers; ++l)
        for (int h = 0; h < c.heads; ++h) count += capture.includes(l, h) ? 1 : 0;
    return count;
}

// The output head over the last row or every row: final norm, masked-LM transform, projection.
// `out` is filled by the next synchronize().
void queueLogits(const LayerRunner& runner, const DeviceModel& device, const DeviceNorm& finalNorm,
                 std::unique_ptr<Tensor> rows, LogitsMode mode, RowMatrixXf& out) {
    Backend& be = runner.backend();
    const Architecture& c = runner.architecture();
    const int n = rows->rows();
    if (mode == LogitsMode::LastPosition && n > 1) {
        auto last = be.create(1, c.dModel);
        be.copyRows(*rows, n - 1, 1, *last, 0);
        rows = std::move(last);
    }
    if (finalNorm.gamma) {
        auto normed = be.create(rows->rows(), c.dModel);
        runner.norm(finalNorm, *rows, *normed);
        rows = std::move(normed);
    }
    if (device.headTransform.weight) {
        rows = runner.linear(device.headTransform, *rows);
        be.activate(*rows, c.headActivation);
        auto normed = be.create(rows->rows(), c.dModel);
        runner.norm(device.headTransformNorm, *rows, *normed);
        rows = std::move(normed);
    }
    if (device.outputProjection.weight) rows = runner.linear(device.outputProjection, *rows);
    auto logits = runner.linear(device.lmHead, *rows);
    out.resize(logits->rows(), logits->cols());
    be.enqueueDownload(*logits, out.data());
}

void validateTokenTypes(const Architecture& c, const ForwardRequest& request) {
    if (request.tokenTypes.empty()) return;
    if (request.tokenTypes.size() != request.ids.size())
        throw Error("token types must have one entry per token");
    for (int t : request.tokenTypes)
        if (t < 0 || t >= std::max(c.typeVocabSize, 1))
            throw Error("token type " + std::to_string(t) + " is outside the model's range");
}

}  // namespace

void validateIds(const Architecture& config, const std::vector<int>& ids) {
    if (ids.empty()) throw Error("no tokens to run: the input is empty");
    if (static_cast<int>(ids.size()) > config.contextLength)
        throw Error(std::to_string(ids.size()) + " tokens exceed the model's context of " +
                    std::to_string(config.contextLength) + " positions");
    for (size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || ids[i] >= config.vocabSize)
            throw Error("token id " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
                        " is outside the vocabulary (0.." + std::to_string(config.vocabSize - 1) +
                        ")");
}

namespace {

// One stack's share: the trace (q, k, v of every layer; n_q x n_k scores and probabilities of
// each captured head, twice over for a decoder's cross-attention) and one layer's activations:
// residual, norm output, projections (rotated copies included), attention output, MLP hidden
// and gate, and the CPU backend's score scratch per worker thread: a block of query rows, or
// with a score transform two n x n matrices.
std::uint64_t stackBytes(const Architecture& c, const CaptureSelection& capture, std::uint64_t n,
                         std::uint64_t keys, int attentionBlocks, bool wholeScores) {
    const std::uint64_t f = sizeof(float);
    std::uint64_t qkvCols = 0, headCols = 0;  // the widest layer's
    for (int l = 0; l < std::max(c.layers, 1); ++l) {
        qkvCols = std::max(
            qkvCols, static_cast<std::uint64_t>(c.heads + 2 * c.kvHeadsOf(l)) * c.headDimOf(l));
        headCols = std::max(headCols, static_cast<std::uint64_t>(c.heads) * c.headDimOf(l));
    }
    const std::uint64_t matrices = capture.scores + capture.probabilities;
    const std::uint64_t cells = std::max(n * n, n * keys);
    const std::uint64_t trace =
        attentionBlocks * (c.layers * std::max(n, keys) * qkvCols * f +
                           capturedHeads(c, capture) * matrices * cells * f);
    const std::uint64_t width = (4ull + 2 * c.streams.count) * c.dModel + 2 * qkvCols + headCols +
                                2ull * c.dFF +
                                static_cast<std::uint64_t>(c.layers) * c.perLayerInputs.width;
    const std::uint64_t workers = std::max(1u, std::thread::hardware_concurrency());
    const std::uint64_t scratch = wholeScores ? 2 * cells : kAttentionQueryBlock * keys;
    return trace + n * width * f + workers * scratch * f;
}

std::vector<int> decoderInput(const Architecture& c, const ForwardRequest& request) {
    if (!request.targetIds.empty()) return request.targetIds;
    return {c.decoderStartToken};
}

}  // namespace

std::uint64_t forwardMemoryBytes(const Architecture& c, const ForwardRequest& request) {
    const std::uint64_t n = request.ids.size();
    const bool wholeScores = request.config.transform != ScoreTransform::None;
    std::uint64_t bytes = stackBytes(c, request.capture, n, n, 1, wholeScores);
    std::uint64_t outputRows = n;
    if (c.isEncoderDecoder()) {
        outputRows = decoderInput(c, request).size();
        bytes +=
            stackBytes(c.decoderArchitecture(), request.capture, outputRows, n, 2, wholeScores);
    }
    const std::uint64_t logitRows = request.logits == LogitsMode::AllPositions   ? outputRows
                                    : request.logits == LogitsMode::LastPosition ? 1
                                                                                 : 0;
    return bytes + 2 * logitRows * c.vocabSize * sizeof(float);  // backend tensor + host copy
}

ForwardPass::ForwardPass(const Model& model, Backend& backend)
    : m_model(model), m_backend(backend), m_device(model.weights(), backend) {}

namespace {

// A stack's input from token `first` on: token embeddings (projected to d_model where the family
// projects them) and the stack's positions and token types, normed where the family norms them.
std::unique_ptr<Tensor> embedded(const LayerRunner& runner, const ModelWeights& weights,
                                 const MatrixView& positions, const DeviceLinear& projection,
                                 const DeviceNorm& embeddingNorm, const std::vector<int>& ids,
                                 const std::vector<int>& tokenTypes, int first = 0) {
    Backend& be = runner.backend();
    const Architecture& c = runner.architecture();
    RowMatrixXf host = tokenRows(weights, c, ids, first);
    std::unique_ptr<Tensor> x;
    if (projection.weight) {
        x = runner.linear(projection, *be.upload(host.data(), host.rows(), host.cols()));
        host.setZero(host.rows(), c.dModel);
        addPositionRows(host, weights, positions, c, tokenTypes, first);
        be.add(*x, *be.upload(host.data(), host.rows(), c.dModel));
    } else {
        addPositionRows(host, weights, positions, c, tokenTypes, first);
        x = be.upload(host.data(), host.rows(), c.dModel);
    }
    if (!embeddingNorm.gamma) return x;
    auto normed = be.create(x->rows(), c.dModel);
    runner.norm(embeddingNorm, *x, *normed);
    return normed;
}

// T5's position bias for a stack's self-attention, uploaded; null for other families.
std::unique_ptr<Tensor> positionBias(Backend& be, const Architecture& c, const MatrixView& table,
                                     int n, bool bidirectional) {
    if (c.relativeBuckets == 0) return nullptr;
    const RowMatrixXf bias =
        relativePositionBias(table, c.heads, n, n, bidirectional, c.relativeMaxDistance);
    return be.upload(bias.data(), bias.rows(), bias.cols());
}

}  // namespace

ForwardResult ForwardPass::run(const ForwardRequest& request, KeptVectors* keep) const {
    return compute(request, nullptr, {nullptr, nullptr, 0, keep});
}

bool ForwardPass::canKeepPrefix(const ForwardRequest& request) const {
    const Architecture& c = m_model.architecture();
    // A linear or state-space layer's state and a short convolution run through every token:
    // nothing is kept.
    return c.causal && !c.isEncoderDecoder() && c.relativeBuckets == 0 &&
           request.tokenTypes.empty() && !c.hasMixer(Mixer::GatedDeltaNet) &&
           !c.hasMixer(Mixer::Mamba2) && !c.hasMixer(Mixer::ShortConv) && !c.besideMamba &&
           !c.keyIndexer.present() && !c.streams.present() && !c.sharesKeyValues();
}

ForwardResult ForwardPass::runAfter(const ForwardRequest& request, const ForwardResult& earlier,
                                    const KeptVectors& earlierVectors, int kept,
                                    KeptVectors* keep) const {
    const int n = static_cast<int>(request.ids.size());
    if (kept < 0 || kept >= n || kept > earlier.trace.tokens() ||
        (kept > 0 && (!canKeepPrefix(request) ||
                      !m_model.architecture().rotationsAgree(earlier.trace.tokens(), n))))
        throw Error("internal error: no prefix of " + std::to_string(kept) + " tokens to keep");
    if (kept > 0 && static_cast<int>(earlierVectors.size()) < m_model.architecture().layers)
        throw Error("internal error: the earlier forward kept no q, k and v");
    return compute(request, kept > 0 ? &earlier : nullptr,
                   {&earlier.trace, &earlierVectors, kept, keep});
}

ForwardResult ForwardPass::compute(const ForwardRequest& request, const ForwardResult* earlier,
                                   const KeptPrefix& prefix) const {
    const int kept = prefix.tokens;
    const Architecture& c = m_model.architecture();
    const ModelWeights& weights = m_model.weights();
    validateIds(c, request.ids);
    validateTokenTypes(c, request);
    const std::vector<int> targets = decoderInput(c, request);
    if (c.isEncoderDecoder())
        validateIds(c, targets);
    else if (!request.targetIds.empty())
        throw Error("target ids are for encoder-decoder models; " + m_model.name() + " is not one");
    const int n = static_cast<int>(request.ids.size());
    const int heads = capturedHeads(c, request.capture);
    requireMemory(forwardMemoryBytes(c, request),
                  "a forward pass over " + std::to_string(n) + " tokens",
                  heads == 0 ? ""
                             : "(its capture holds " + std::to_string(heads) + " heads' " +
                                   std::to_string(n) + "x" + std::to_string(n) + " matrices)",
                  heads == 0 ? "" : "capture one layer or one head, or use a shorter input");
    m_model.checkUnchanged();
    Backend& be = m_backend;
    const int totalLayers = c.layers + c.decoderLayers;
    auto step = [&](int done) {
        if (request.progress) request.progress(done, totalLayers);
    };

    const auto bias = positionBias(be, c, weights.relativeBias, n, true);
    if (prefix.keep) prefix.keep->clear();
    LayerRunner runner(be, c, request, bias.get(), prefix);
    ForwardResult result{AttentionTrace(n, c.mostHeads()), {}, {}, {}};
    result.trace.setHasSinks(c.attentionSinks);
    // Backends may fill the traces after run() queued the copies: their buffers must not move.
    result.trace.layers().reserve(c.layers);
    // With a kept prefix, x holds the later tokens' rows only.
    auto x = embedded(runner, weights, weights.positionEmbedding, m_device.embeddingProjection,
                      m_device.embeddingNorm, request.ids, request.tokenTypes, kept);
    std::unique_ptr<Tensor> perLayer;
    if (c.perLayerInputs.present()) {
        perLayer = perLayerInputs(runner, weights, m_device, request.ids, *x);
        runner.usePerLayerInputs(perLayer.get());
    }
    if (c.streams.present()) x = streamsFrom(runner, m_device, *x);
    auto h = be.create(x->rows(), c.dModel);
    // Without logits nothing reads a (decoder-only) model's last layer's output.
    const bool outputRead =
        c.isEncoderDecoder() || (request.logits != LogitsMode::None && m_device.lmHead.weight);
    for (int l = 0; l < c.layers; ++l) {
        if (request.cancel && request.cancel->load()) throw Cancelled();
        LayerTrace& traced = result.trace.layers().emplace_back();
        // A last layer whose output nothing reads traces its attention (and its routing) alone.
        if (l + 1 < c.layers || outputRead)
            runner.run(l, m_device.layers[l], *x, *h, traced);
        else
            runner.traceOnly(l, m_device.layers[l], *x, *h, traced);
        step(l + 1);
    }
    if (c.streams.present() && outputRead) x = mergedStreams(runner, m_device, *x);
    if (!c.isEncoderDecoder()) {
        if (request.logits != LogitsMode::None && m_device.lmHead.weight)
            queueLogits(runner, m_device, m_device.finalNorm, std::move(x), request.logits,
                        result.logits);
    } else {
        if (m_device.finalNorm.gamma) {  // the encoder's last norm (T5)
            runner.norm(m_device.finalNorm, *x, *h);
            std::swap(x, h);
        }
        const Architecture decoder = c.decoderArchitecture();
        const int t = static_cast<int>(targets.size());
        const auto decoderBias = positionBias(be, decoder, weights.decoderRelativeBias, t, false);
        const LayerRunner decoding(be, decoder, request, decoderBias.get());
        result.decoderTrace = AttentionTrace(t, decoder.heads);
        result.crossTrace = AttentionTrace(t, decoder.heads, n);
        result.decoderTrace.layers().reserve(decoder.layers);
        result.crossTrace.layers().reserve(decoder.layers);
        auto y = embedded(decoding, weights, weights.decoderPositionEmbedding, {},
                          m_device.decoderEmbeddingNorm, targets, {});
        auto hy = be.create(t, c.dModel);
        for (int l = 0; l < decoder.layers; ++l) {
            if (request.cancel && request.cancel->load()) throw Cancelled();
            decoding.run(l, m_device.decoderLayers[l], *y, *hy,
                         result.decoderTrace.layers().emplace_back(), x.get(),
                         &result.crossTrace.layers().emplace_back());
            step(c.layers + l + 1);
        }
        if (request.logits != LogitsMode::None && m_device.lmHead.weight)
            queueLogits(decoding, m_device, m_device.decoderFinalNorm, std::move(y), request.logits,
                        result.logits);
    }
    be.synchronize();
    // T5 scales the head's input; with no bias in its head, scaling the logits is the same.
    if (c.logitInputScale != 1.0f) result.logits *= c.logitInputScale;
    if (c.logitSoftCap > 0.0f)
        result.logits = (result.logits.array() / c.logitSoftCap).tanh() * c.logitSoftCap;
    if (kept > 0 && request.logits == LogitsMode::AllPositions) {
        RowMatrixXf all(n, result.logits.cols());
        all << earlier->logits.topRows(kept), result.logits;
        result.logits = std::move(all);
    }
    return result;
}

}  // namespace qkv
