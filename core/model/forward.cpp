#include "core/model/forward.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "core/util/memory.h"

namespace qkv {
namespace {

const DeviceLinear& projection(const DeviceLayer& layer, Projection p) {
    switch (p) {
        case Projection::Query: return layer.query;
        case Projection::Key: return layer.key;
        case Projection::Value: return layer.value;
    }
    return layer.query;
}

// Embeddings computed on the host (a gather from the mapped tables), then uploaded.
RowMatrixXf embed(const ModelWeights& w, const ModelConfig& c, const ForwardRequest& request) {
    const int n = static_cast<int>(request.ids.size());
    RowMatrixXf x(n, c.dModel);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < c.dModel; ++j) {
            float v = w.tokenEmbedding.at(request.ids[i], j);
            if (!w.positionEmbedding.empty()) v += w.positionEmbedding.at(i, j);
            if (!w.tokenTypeEmbedding.empty())
                v += w.tokenTypeEmbedding.at(request.tokenTypes.empty() ? 0 : request.tokenTypes[i], j);
            x(i, j) = v;
        }
    }
    return x;
}

class LayerRunner {
public:
    LayerRunner(Backend& backend, const ModelConfig& config) : m_backend(backend), m_config(config) {}

    void norm(const DeviceNorm& n, const Tensor& x, Tensor& y) const {
        if (m_config.norm == NormKind::RmsNorm)
            m_backend.rmsNorm(x, *n.gamma, m_config.normEps, y);
        else
            m_backend.layerNorm(x, *n.gamma, n.beta.get(), m_config.normEps, y);
    }

    std::unique_ptr<Tensor> linear(const DeviceLinear& l, const Tensor& x) const {
        auto y = m_backend.create(x.rows(), l.weight->cols());
        m_backend.linear(x, *l.weight, l.bias.get(), *y);
        return y;
    }

    std::unique_ptr<Tensor> mlp(const DeviceLayer& layer, const Tensor& x) const {
        auto hidden = linear(layer.mlpIn, x);
        if (m_config.activation == Activation::SwiGlu)
            m_backend.swiGlu(*linear(layer.mlpGate, x), *hidden);
        else
            m_backend.activate(*hidden, m_config.activation);
        return linear(layer.mlpOut, *hidden);
    }

private:
    Backend& m_backend;
    const ModelConfig& m_config;
};

int capturedHeads(const ModelConfig& c, const CaptureSelection& capture) {
    if (!capture.scores && !capture.probabilities) return 0;
    int count = 0;
    for (int l = 0; l < c.layers; ++l)
        for (int h = 0; h < c.heads; ++h) count += capture.includes(l, h) ? 1 : 0;
    return count;
}

}  // namespace

void validateIds(const ModelConfig& config, const std::vector<int>& ids) {
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

std::uint64_t forwardMemoryBytes(const ModelConfig& c, const ForwardRequest& request) {
    const std::uint64_t n = request.ids.size();
    const std::uint64_t f = sizeof(float);
    const std::uint64_t qkvCols = static_cast<std::uint64_t>(c.heads + 2 * c.kvHeads) * c.headDim;
    const std::uint64_t matrices = request.capture.scores + request.capture.probabilities;
    const std::uint64_t trace =
        c.layers * n * qkvCols * f + capturedHeads(c, request.capture) * matrices * n * n * f;
    const std::uint64_t logitRows = request.logits == LogitsMode::AllPositions ? n
                                    : request.logits == LogitsMode::LastPosition ? 1 : 0;
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
    const ModelConfig& c = m_model.config();
    validateIds(c, request.ids);
    if (!request.tokenTypes.empty()) {
        if (request.tokenTypes.size() != request.ids.size())
            throw Error("token types must have one entry per token");
        for (int t : request.tokenTypes)
            if (t < 0 || t >= std::max(c.typeVocabSize, 1))
                throw Error("token type " + std::to_string(t) + " is outside the model's range");
    }
    const int n = static_cast<int>(request.ids.size());
    const int heads = capturedHeads(c, request.capture);
    requireMemory(forwardMemoryBytes(c, request),
                  "a forward pass over " + std::to_string(n) + " tokens",
                  heads == 0 ? "" : "(its capture holds " + std::to_string(heads) + " heads' " +
                                        std::to_string(n) + "x" + std::to_string(n) + " matrices)",
                  heads == 0 ? "" : "capture one layer or one head, or use a shorter input");
    m_model.checkUnchanged();
    const AttentionConfig& config = request.config;
    Backend& be = m_backend;
    LayerRunner run(be, c);

    // Slots filled from W_Q have one head per query head; from W_K or W_V, one per KV head.
    auto groupOf = [&](Projection p) { return p == Projection::Query ? 1 : c.kvGroup(); };
    AttentionLayout layout{c.heads, c.headDim, groupOf(config.querySource),
                           groupOf(config.keySource), groupOf(config.valueSource)};
    AttentionOptions options{c.causal, config.maskSelf, config.scaleOutside, config.transform};

    ForwardResult result{AttentionTrace(n, layout), {}};
    // Backends may fill the trace after run() queued the copies: its buffers must not move.
    result.trace.layers().reserve(c.layers);
    const RowMatrixXf embedded = embed(m_model.weights(), c, request);
    auto x = be.upload(embedded.data(), n, c.dModel);
    if (m_device.embeddingNorm.gamma) {
        auto normed = be.create(n, c.dModel);
        run.norm(m_device.embeddingNorm, *x, *normed);
        x = std::move(normed);
    }

    auto h = be.create(n, c.dModel);
    for (int l = 0; l < c.layers; ++l) {
        if (request.cancel && request.cancel->load()) throw Cancelled();
        const DeviceLayer& layer = m_device.layers[l];
        const Tensor& attentionInput = c.preNorm ? (run.norm(layer.attentionNorm, *x, *h), *h) : *x;

        // One projection per distinct source; rotary embedding on the Q and K slots only (a V
        // slot filled from W_Q keeps the un-rotated projection).
        std::unique_ptr<Tensor> projected[3];
        auto source = [&](Projection p) -> Tensor& {
            auto& slot = projected[static_cast<int>(p)];
            if (!slot) slot = run.linear(projection(layer, p), attentionInput);
            return *slot;
        };
        std::unique_ptr<Tensor> rotated[3];
        auto positioned = [&](Projection p) -> Tensor& {
            Tensor& raw = source(p);
            if (c.learnedPositions) return raw;
            auto& slot = rotated[static_cast<int>(p)];
            if (!slot) {
                slot = be.create(raw.rows(), raw.cols());
                be.rope(raw, c.headDim, c.ropeTheta, *slot);
            }
            return *slot;
        };
        Tensor& q = positioned(config.querySource);
        Tensor& k = positioned(config.keySource);
        Tensor& v = source(config.valueSource);

        LayerTrace& traced = result.trace.layers().emplace_back();
        traced.scores.resize(c.heads);
        traced.probabilities.resize(c.heads);
        AttentionCapture capture;
        capture.scores.assign(c.heads, nullptr);
        capture.probabilities.assign(c.heads, nullptr);
        for (int head = 0; head < c.heads; ++head) {
            if (!request.capture.includes(l, head)) continue;
            if (request.capture.scores) {
                traced.scores[head].resize(n, n);
                capture.scores[head] = traced.scores[head].data();
            }
            if (request.capture.probabilities) {
                traced.probabilities[head].resize(n, n);
                capture.probabilities[head] = traced.probabilities[head].data();
            }
        }
        auto attended = be.create(n, c.heads * c.headDim);
        be.attention(q, k, v, layout, options, *attended, &capture);
        for (auto [tensor, target] : {std::pair{&q, &traced.query}, std::pair{&k, &traced.key},
                                      std::pair{&v, &traced.value}}) {
            target->resize(tensor->rows(), tensor->cols());
            be.enqueueDownload(*tensor, target->data());
        }

        auto attentionOut = run.linear(layer.output, *attended);
        if (c.preNorm) {
            be.add(*x, *attentionOut);
            run.norm(layer.mlpNorm, *x, *h);
            be.add(*x, *run.mlp(layer, *h));
        } else {
            be.add(*attentionOut, *x);
            run.norm(layer.attentionNorm, *attentionOut, *x);
            auto mlpOut = run.mlp(layer, *x);
            be.add(*mlpOut, *x);
            run.norm(layer.mlpNorm, *mlpOut, *x);
        }
    }

    if (request.logits != LogitsMode::None && m_device.lmHead.weight) {
        std::unique_ptr<Tensor> rows = std::move(x);
        if (request.logits == LogitsMode::LastPosition && n > 1) {
            auto last = be.create(1, c.dModel);
            be.copyRows(*rows, n - 1, 1, *last);
            rows = std::move(last);
        }
        if (m_device.finalNorm.gamma) {
            auto normed = be.create(rows->rows(), c.dModel);
            run.norm(m_device.finalNorm, *rows, *normed);
            rows = std::move(normed);
        }
        if (m_device.headTransform.weight) {
            rows = run.linear(m_device.headTransform, *rows);
            be.activate(*rows, c.activation);
            auto normed = be.create(rows->rows(), c.dModel);
            run.norm(m_device.headTransformNorm, *rows, *normed);
            rows = std::move(normed);
        }
        auto logits = run.linear(m_device.lmHead, *rows);
        result.logits.resize(logits->rows(), logits->cols());
        be.enqueueDownload(*logits, result.logits.data());
    }
    be.synchronize();
    return result;
}

}  // namespace qkv
