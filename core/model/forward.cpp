#include "core/model/forward.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

#include "core/util/memory.h"

namespace qkv {
namespace {

const DeviceLinear& projection(const DeviceLayer& layer, Projection p) {
    switch (p) {
        case Projection::Query:
            return layer.query;
        case Projection::Key:
            return layer.key;
        case Projection::Value:
            return layer.value;
    }
    return layer.query;
}

// Embeddings computed on the host (a gather from the mapped tables), then uploaded.
RowMatrixXf embed(const ModelWeights& w, const Architecture& c, const ForwardRequest& request) {
    const int n = static_cast<int>(request.ids.size());
    RowMatrixXf x(n, c.dModel);
    for (int i = 0; i < n; ++i) {
        const int type = request.tokenTypes.empty() ? 0 : request.tokenTypes[i];
        for (int j = 0; j < c.dModel; ++j) {
            float v = w.tokenEmbedding.at(request.ids[i], j) * c.embeddingScale;
            if (!w.positionEmbedding.empty()) v += w.positionEmbedding.at(i + c.positionOffset, j);
            if (!w.tokenTypeEmbedding.empty()) v += w.tokenTypeEmbedding.at(type, j);
            x(i, j) = v;
        }
    }
    return x;
}

int capturedHeads(const Architecture& c, const CaptureSelection& capture) {
    if (!capture.scores && !capture.probabilities) return 0;
    int count = 0;
    for (int l = 0; l < c.layers; ++l)
        for (int h = 0; h < c.heads; ++h) count += capture.includes(l, h) ? 1 : 0;
    return count;
}

// One forward's layers: the description (Architecture) decides norms, residuals, positions and
// the attention's scale, cap and window; the request's W configuration decides which projection
// fills each slot.
class LayerRunner {
  public:
    LayerRunner(Backend& backend, const Architecture& config, const ForwardRequest& request)
        : m_be(backend), m_c(config), m_request(request) {
        // Slots filled from W_Q have one head per query head; from W_K or W_V, one per KV head.
        auto groupOf = [&](Projection p) { return p == Projection::Query ? 1 : m_c.kvGroup(); };
        const WConfiguration& a = request.config;
        m_layout = {m_c.heads, m_c.headDim, groupOf(a.querySource), groupOf(a.keySource),
                    groupOf(a.valueSource)};
    }

    const AttentionLayout& layout() const { return m_layout; }
    Backend& backend() const { return m_be; }
    const Architecture& architecture() const { return m_c; }

    // x := the layer's output; h is scratch of x's shape.
    void run(int l, const DeviceLayer& layer, Tensor& x, Tensor& h, LayerTrace& traced) const {
        if (m_c.parallelResidual) {  // x + attn(ln1 x) + mlp(ln2 x)
            norm(layer.attentionNorm, x, h);
            auto attention = attend(l, layer, h, traced);
            norm(layer.mlpNorm, x, h);
            m_be.add(x, *mlp(layer, h));
            m_be.add(x, *attention);
        } else if (m_c.preNorm) {  // x + out(attn(norm x)), then the same for the MLP
            norm(layer.attentionNorm, x, h);
            addResidual(x, *attend(l, layer, h, traced), layer.attentionOutputNorm, h);
            norm(layer.mlpNorm, x, h);
            addResidual(x, *mlp(layer, h), layer.mlpOutputNorm, h);
        } else {  // norm(x + attn(x)), then norm(x + mlp(x))
            auto attention = attend(l, layer, x, traced);
            m_be.add(*attention, x);
            norm(layer.attentionNorm, *attention, x);
            auto mlpOut = mlp(layer, x);
            m_be.add(*mlpOut, x);
            norm(layer.mlpNorm, *mlpOut, x);
        }
    }

    void norm(const DeviceNorm& n, const Tensor& x, Tensor& y) const {
        if (m_c.norm == NormKind::RmsNorm)
            m_be.rmsNorm(x, *n.gamma, m_c.normEps, y);
        else
            m_be.layerNorm(x, *n.gamma, n.beta.get(), m_c.normEps, y);
    }

    std::unique_ptr<Tensor> linear(const DeviceLinear& l, const Tensor& x) const {
        auto y = m_be.create(x.rows(), l.weight->cols());
        m_be.linear(x, *l.weight, l.bias.get(), *y);
        return y;
    }

  private:
    // x += sublayer output, normed first where the family norms it (Gemma-2).
    void addResidual(Tensor& x, const Tensor& out, const DeviceNorm& outputNorm, Tensor& h) const {
        if (!outputNorm.gamma) {
            m_be.add(x, out);
            return;
        }
        norm(outputNorm, out, h);
        m_be.add(x, h);
    }

    std::unique_ptr<Tensor> mlp(const DeviceLayer& layer, const Tensor& x) const {
        auto hidden = linear(layer.mlpIn, x);
        if (isGated(m_c.activation))
            m_be.glu(*linear(layer.mlpGate, x), *hidden, m_c.activation);
        else
            m_be.activate(*hidden, m_c.activation);
        return linear(layer.mlpOut, *hidden);
    }

    // Q, K, V under the request's configuration -> attention (captured) -> output projection.
    std::unique_ptr<Tensor> attend(int l, const DeviceLayer& layer, const Tensor& input,
                                   LayerTrace& traced) const {
        const WConfiguration& config = m_request.config;
        // One projection per distinct source; rotary embedding on the Q and K slots only (a V
        // slot filled from W_Q keeps the un-rotated projection).
        std::unique_ptr<Tensor> projected[3];
        auto source = [&](Projection p) -> Tensor& {
            auto& slot = projected[static_cast<int>(p)];
            if (!slot) slot = linear(projection(layer, p), input);
            return *slot;
        };
        std::unique_ptr<Tensor> rotated[3];
        auto positioned = [&](Projection p) -> Tensor& {
            Tensor& raw = source(p);
            if (m_c.positions != Positions::Rotary) return raw;
            auto& slot = rotated[static_cast<int>(p)];
            if (!slot) {
                slot = m_be.create(raw.rows(), raw.cols());
                m_be.rope(raw, m_c.headDim, m_c.rotaryWidth(), m_c.ropeTheta, *slot);
            }
            return *slot;
        };
        Tensor& q = positioned(config.querySource);
        Tensor& k = positioned(config.keySource);
        Tensor& v = source(config.valueSource);

        const int n = q.rows();
        const AttentionCapture capture = captureInto(l, n, traced);
        const KeyMask mask = m_c.keyMask(l);
        const AttentionOptions options{mask.causal,      config.maskSelf,    config.scaleOutside,
                                       config.transform, m_c.attentionScale, m_c.attentionSoftCap,
                                       mask.window};
        auto attended = m_be.create(n, m_c.heads * m_c.headDim);
        m_be.attention(q, k, v, m_layout, options, *attended, &capture);
        for (auto [tensor, target] : {std::pair{&q, &traced.query}, std::pair{&k, &traced.key},
                                      std::pair{&v, &traced.value}}) {
            target->resize(tensor->rows(), tensor->cols());
            m_be.enqueueDownload(*tensor, target->data());
        }
        return linear(layer.output, *attended);
    }

    // Host buffers in the trace for the heads the request captures.
    AttentionCapture captureInto(int l, int n, LayerTrace& traced) const {
        traced.scores.resize(m_c.heads);
        traced.probabilities.resize(m_c.heads);
        AttentionCapture capture;
        capture.scores.assign(m_c.heads, nullptr);
        capture.probabilities.assign(m_c.heads, nullptr);
        const CaptureSelection& wanted = m_request.capture;
        for (int head = 0; head < m_c.heads; ++head) {
            if (!wanted.includes(l, head)) continue;
            if (wanted.scores) {
                traced.scores[head].resize(n, n);
                capture.scores[head] = traced.scores[head].data();
            }
            if (wanted.probabilities) {
                traced.probabilities[head].resize(n, n);
                capture.probabilities[head] = traced.probabilities[head].data();
            }
        }
        return capture;
    }

    Backend& m_be;
    const Architecture& m_c;
    const ForwardRequest& m_request;
    AttentionLayout m_layout;
};

// The output head over the last row or every row: final norm, masked-LM transform, projection.
// `out` is filled by the next synchronize().
void queueLogits(const LayerRunner& runner, const DeviceModel& device, std::unique_ptr<Tensor> rows,
                 LogitsMode mode, RowMatrixXf& out) {
    Backend& be = runner.backend();
    const Architecture& c = runner.architecture();
    const int n = rows->rows();
    if (mode == LogitsMode::LastPosition && n > 1) {
        auto last = be.create(1, c.dModel);
        be.copyRows(*rows, n - 1, 1, *last);
        rows = std::move(last);
    }
    if (device.finalNorm.gamma) {
        auto normed = be.create(rows->rows(), c.dModel);
        runner.norm(device.finalNorm, *rows, *normed);
        rows = std::move(normed);
    }
    if (device.headTransform.weight) {
        rows = runner.linear(device.headTransform, *rows);
        be.activate(*rows, c.headActivation);
        auto normed = be.create(rows->rows(), c.dModel);
        runner.norm(device.headTransformNorm, *rows, *normed);
        rows = std::move(normed);
    }
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

std::uint64_t forwardMemoryBytes(const Architecture& c, const ForwardRequest& request) {
    const std::uint64_t n = request.ids.size();
    const std::uint64_t f = sizeof(float);
    const std::uint64_t qkvCols = static_cast<std::uint64_t>(c.heads + 2 * c.kvHeads) * c.headDim;
    const std::uint64_t matrices = request.capture.scores + request.capture.probabilities;
    const std::uint64_t trace =
        c.layers * n * qkvCols * f + capturedHeads(c, request.capture) * matrices * n * n * f;
    const std::uint64_t logitRows = request.logits == LogitsMode::AllPositions   ? n
                                    : request.logits == LogitsMode::LastPosition ? 1
                                                                                 : 0;
    const std::uint64_t logits = 2 * logitRows * c.vocabSize * f;  // backend tensor + host copy
    // Residual, norm output, projections (rotated copies included), attention output, MLP
    // hidden and gate, and the backend's n x n score scratch per worker thread (twice with a
    // score transform).
    const std::uint64_t width = 4ull * c.dModel + 2 * qkvCols + c.heads * c.headDim + 2ull * c.dFF;
    const std::uint64_t workers = std::max(1u, std::thread::hardware_concurrency());
    const std::uint64_t activations = n * width * f + 2 * workers * n * n * f;
    return trace + logits + activations;
}

ForwardPass::ForwardPass(const Model& model, Backend& backend)
    : m_model(model), m_backend(backend), m_device(model.weights(), backend) {}

ForwardResult ForwardPass::run(const ForwardRequest& request) const {
    const Architecture& c = m_model.architecture();
    validateIds(c, request.ids);
    validateTokenTypes(c, request);
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
    const LayerRunner runner(be, c, request);

    ForwardResult result{AttentionTrace(n, runner.layout()), {}};
    // Backends may fill the trace after run() queued the copies: its buffers must not move.
    result.trace.layers().reserve(c.layers);
    const RowMatrixXf embedded = embed(m_model.weights(), c, request);
    auto x = be.upload(embedded.data(), n, c.dModel);
    if (m_device.embeddingNorm.gamma) {
        auto normed = be.create(n, c.dModel);
        runner.norm(m_device.embeddingNorm, *x, *normed);
        x = std::move(normed);
    }
    auto h = be.create(n, c.dModel);
    for (int l = 0; l < c.layers; ++l) {
        if (request.cancel && request.cancel->load()) throw Cancelled();
        runner.run(l, m_device.layers[l], *x, *h, result.trace.layers().emplace_back());
        if (request.progress) request.progress(l + 1, c.layers);
    }
    if (request.logits != LogitsMode::None && m_device.lmHead.weight)
        queueLogits(runner, m_device, std::move(x), request.logits, result.logits);
    be.synchronize();
    if (c.logitSoftCap > 0.0f)
        result.logits = (result.logits.array() / c.logitSoftCap).tanh() * c.logitSoftCap;
    return result;
}

}  // namespace qkv
