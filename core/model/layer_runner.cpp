#include "core/model/layer_runner.h"

#include <numeric>
#include <optional>

#include "core/model/key_indexer.h"
#include "core/model/token_mixers.h"

namespace qkv {
namespace {

// q's row i times the temperature of position first + i, in a tensor of its own (the query
// slot's projection may fill the key slot too under shared-qk, and keys keep their scale): a copy
// whose rows then gain (t − 1) times themselves.
std::unique_ptr<Tensor> warmed(Backend& be, const Tensor& q, const QueryTemperature& t, int first) {
    auto out = be.create(q.rows(), q.cols());
    be.copyRows(q, 0, q.rows(), *out, 0);
    std::vector<int> rows(q.rows());
    std::iota(rows.begin(), rows.end(), 0);
    std::vector<float> gain(q.rows());
    for (int i = 0; i < q.rows(); ++i) gain[i] = t.at(first + i) - 1.0f;
    be.addWeightedRows(q, rows, gain, *out);
    return out;
}

}  // namespace

AttentionLayout LayerRunner::layoutOf(int l) const {
    const int group = m_c.heads / m_c.kvHeadsOf(l);
    auto groupOf = [&](Projection p) { return p == Projection::Query ? 1 : group; };
    const WConfiguration& a = m_request.config;
    return {m_c.heads,
            m_c.headDimOf(l),
            groupOf(a.querySource),
            groupOf(a.keySource),
            groupOf(a.valueSource),
            m_c.valueDim};
}

void LayerRunner::run(int l, const DeviceLayer& layer, Tensor& x, Tensor& h, LayerTrace& traced,
                      const Tensor* encoded, LayerTrace* crossTraced) const {
    if (m_c.streams.present()) {  // x holds the streams one after another
        runStreams(l, layer, x, traced);
        return;
    }
    const AttentionBlock cross = AttentionBlock::cross(layer);
    if (m_c.parallelResidual) {  // x + attn(ln1 x) + mlp(ln2 x)
        norm(layer.attentionNorm, x, h);
        auto attention = mixTokens(l, layer, h, traced);
        norm(layer.mlpNorm, x, h);
        m_be.add(x, *mlp(l, layer, h, traced));
        m_be.add(x, *attention);
    } else if (m_c.preNorm) {  // x + out(attn(norm x)), then the same for the MLP
        // A sublayer without an input norm (OLMo 2, ModernBERT's first layer) reads x. A block
        // may have only one of the two (Nemotron-H).
        if (m_c.mixerOf(l) != Mixer::None) {
            const Tensor& in = normedOrSame(layer.attentionNorm, x, h);
            addResidual(x, *mixTokens(l, layer, in, traced), layer.attentionOutputNorm, h);
        }
        if (encoded) {
            norm(layer.crossNorm, x, h);
            m_be.add(x, *attend(l, cross, h, *encoded, kUnmasked, nullptr, *crossTraced));
        }
        if (m_c.kindOf(l).mlp)
            addResidual(x, *mlp(l, layer, normedOrSame(layer.mlpNorm, x, h), traced),
                        layer.mlpOutputNorm, h);
        scaleInPlace(m_be, x, layer.outputScale, &h);
    } else {  // norm(x + attn(x)), then norm(x + mlp(x))
        postNormed(layer.attentionNorm, x, mixTokens(l, layer, x, traced));
        if (encoded)
            postNormed(layer.crossNorm, x,
                       attend(l, cross, x, *encoded, kUnmasked, nullptr, *crossTraced));
        postNormed(layer.mlpNorm, x, mlp(l, layer, x, traced));
    }
}

void LayerRunner::traceOnly(int l, const DeviceLayer& layer, Tensor& x, Tensor& h,
                            LayerTrace& traced) const {
    const bool routed = !layer.experts.empty();
    if ((routed && !m_c.preNorm) || m_c.streams.present()) {
        run(l, layer, x, h, traced);
        return;
    }
    if (m_c.mixerOf(l) == Mixer::None) {  // a block of experts alone keeps its routing
        if (routed)
            traceRouting(l, routeTokens(m_be, m_c, layer, normedOrSame(layer.mlpNorm, x, h)),
                         traced);
        return;
    }
    const Tensor* input = &x;
    if (m_c.preNorm || m_c.parallelResidual) input = &normedOrSame(layer.attentionNorm, x, h);
    const bool mixerThenExperts = routed && m_c.kindOf(l).mlp;
    auto out = mixTokens(l, layer, *input, traced, mixerThenExperts);
    if (!mixerThenExperts) return;
    addResidual(x, *out, layer.attentionOutputNorm, h);
    traceRouting(l, routeTokens(m_be, m_c, layer, normedOrSame(layer.mlpNorm, x, h)), traced);
}

std::unique_ptr<Tensor> LayerRunner::mixTokens(int l, const DeviceLayer& layer, const Tensor& in,
                                               LayerTrace& traced, bool project) const {
    const MixerRequest mixer{l, m_request.config, m_request.capture};
    if (!layer.beside.empty()) {  // Falcon-H1: attention + the Mamba-2 mixer beside it
        auto attended = attend(l, AttentionBlock::self(layer), in, in, m_c.keyMask(l),
                               m_positionBias, traced, true);
        traced.beside.resize(1);
        m_be.add(*attended, *runMamba2(m_be, m_c.besideAt(l), layer.beside.front(), mixer, in,
                                       traced.beside.front()));
        return attended;
    }
    switch (m_c.mixerOf(l)) {
        case Mixer::GatedDeltaNet:
            return runDeltaNet(m_be, m_c.atLayer(l), layer, mixer, in, traced);
        case Mixer::ShortConv:
            return runShortConv(m_be, m_c.atLayer(l), layer, mixer, in, traced);
        case Mixer::Mamba2:
            return runMamba2(m_be, m_c.atLayer(l), layer, mixer, in, traced);
        case Mixer::Attention:
        case Mixer::None:  // never asked: a block without a mixer has nothing to mix
            break;
    }
    return attend(l, AttentionBlock::self(layer), in, in, m_c.keyMask(l), m_positionBias, traced,
                  project);
}

void LayerRunner::gateOutput(int l, Tensor& gates, Tensor& attended, LayerTrace& traced) const {
    traced.gate.resize(0, 0);
    if (m_request.capture.includesLayer(l)) {  // queued: the forward keeps one submission
        traced.gate.resize(gates.rows(), gates.cols());
        m_be.enqueueDownload(gates, traced.gate.data());
    }
    m_be.glu(gates, attended, Activation::SigmoidGlu);
}

void LayerRunner::norm(const DeviceNorm& n, const Tensor& x, Tensor& y) const {
    if (m_c.norm == NormKind::RmsNorm)
        m_be.rmsNorm(x, *n.gamma, m_c.normEps, y);
    else
        m_be.layerNorm(x, *n.gamma, n.beta.get(), m_c.normEps, y);
}

std::unique_ptr<Tensor> LayerRunner::linear(const DeviceLinear& l, const Tensor& x) const {
    return applyLinear(m_be, l, x);
}

const Tensor& LayerRunner::normedOrSame(const DeviceNorm& n, const Tensor& x, Tensor& y) const {
    if (!n.gamma) return x;
    norm(n, x, y);
    return y;
}

void LayerRunner::postNormed(const DeviceNorm& n, Tensor& x, std::unique_ptr<Tensor> out) const {
    m_be.add(*out, x);
    norm(n, *out, x);
}

void LayerRunner::addResidual(Tensor& x, const Tensor& out, const DeviceNorm& outputNorm,
                              Tensor& h) const {
    const Tensor* branch = &out;
    if (outputNorm.gamma) {
        norm(outputNorm, out, h);
        branch = &h;
    }
    if (m_c.residualScale == 1.0f) {
        m_be.add(x, *branch);
        return;
    }
    std::vector<int> rows(x.rows());  // x += residualScale · branch, row by row
    std::iota(rows.begin(), rows.end(), 0);
    m_be.addWeightedRows(*branch, rows, std::vector<float>(rows.size(), m_c.residualScale), x);
}

std::unique_ptr<Tensor> LayerRunner::mlp(int l, const DeviceLayer& layer, const Tensor& x,
                                         LayerTrace& traced) const {
    if (layer.experts.empty())
        return feedForward(m_be, m_c.activation, layer.mlpIn, layer.mlpGate, layer.mlpOut, x,
                           layer.xielu ? &*layer.xielu : nullptr);
    std::vector<TokenRouting> routed;
    auto out = mixtureOfExperts(m_be, m_c, layer, x, routed);
    traceRouting(l, routed, traced);
    return out;
}

void LayerRunner::traceRouting(int l, const std::vector<TokenRouting>& routed,
                               LayerTrace& traced) const {
    traced.routing.clear();
    if (m_kept.tokens > 0) {
        const std::vector<TokenRouting>& earlier = m_kept.trace->layers()[l].routing;
        if (static_cast<int>(earlier.size()) < m_kept.tokens)
            throw Error("internal error: the kept tokens' routing is missing");
        traced.routing.assign(earlier.begin(), earlier.begin() + m_kept.tokens);
    }
    traced.routing.insert(traced.routing.end(), routed.begin(), routed.end());
}

std::unique_ptr<Tensor> LayerRunner::attend(int l, const AttentionBlock& block,
                                            const Tensor& queries, const Tensor& keys,
                                            const KeyMask& mask, const Tensor* bias,
                                            LayerTrace& traced, bool project) const {
    const WConfiguration& config = m_request.config;
    const bool cross = &queries != &keys;
    const int kept = cross ? 0 : m_kept.tokens;  // the rows of queries and keys start there
    const AttentionLayout layout = layoutOf(l);
    const int headDim = layout.headDim;
    // One projection per distinct (weights, input); QK-norm and rotary embedding on the Q
    // and K slots only (a V slot filled from W_Q keeps the raw projection, normed only by
    // the value slot's own norm where the family has one).
    std::unique_ptr<Tensor> projected[3][2], normed[3][2], rotations[3][2];
    std::optional<LatentProjection> latent;
    if (block.latent) latent.emplace(m_be, m_c, *block.latent);
    SharedProducts fromQueries(m_be, queries), fromKeys(m_be, keys);  // q_proj with its gate
    auto source = [&](Projection p, const Tensor& input) -> Tensor& {
        auto& slot = projected[static_cast<int>(p)][&input == &keys];
        if (!slot)
            slot = latent ? latent->project(p, input)
                          : (&input == &keys ? fromKeys : fromQueries).apply(block.projection(p));
        return *slot;
    };
    // QK-norm of `x`, the slot's projection before or after its rotation.
    auto qkNormed = [&](Projection p, const Tensor& input, Tensor& x) -> Tensor& {
        const DeviceNorm* n = block.normAfter(p);
        if (!n) return x;
        auto& slot = normed[static_cast<int>(p)][&input == &keys];
        if (!slot) {
            slot = m_be.create(x.rows(), x.cols());
            if (m_c.qkNorm == QkNorm::PerHead)
                m_be.rmsNormHeads(x, headDim, *n->gamma, m_c.normEps, *slot);
            else
                m_be.rmsNorm(x, *n->gamma, m_c.normEps, *slot);
        }
        return *slot;
    };
    const Rotary* rotary = cross ? nullptr : m_c.rotaryOf(l);
    auto rotated = [&](Projection p, const Tensor& input, Tensor& x) -> Tensor& {
        if (!rotary) return x;
        auto& slot = rotations[static_cast<int>(p)][&input == &keys];
        if (!slot) {
            slot = m_be.create(x.rows(), x.cols());
            // Frequencies of the whole input's length (dynamic and longrope depend on it).
            m_be.rope(x, headDim, rotary->frequencies(kept + x.rows()), kept, *slot);
        }
        return *slot;
    };
    auto positioned = [&](Projection p, const Tensor& input) -> Tensor& {
        if (m_c.qkNormAfterRotary) return qkNormed(p, input, rotated(p, input, source(p, input)));
        return rotated(p, input, qkNormed(p, input, source(p, input)));
    };
    Tensor* q = &positioned(config.querySource, queries);
    std::unique_ptr<Tensor> warmedQueries;
    if (m_c.warmsQueries(l) && !cross) {
        warmedQueries = warmed(m_be, *q, m_c.queryTemperature, kept);
        q = warmedQueries.get();
    }
    Tensor *k = nullptr, *v = nullptr;  // traced as used
    std::unique_ptr<Tensor> normedValues, unitKeys;
    if (const int lender = cross ? -1 : m_c.kindOf(l).keyValueSource; lender >= 0) {
        const auto lent = m_lentKeyValues.find(lender);
        if (lent == m_lentKeyValues.end())
            throw Error("internal error: layer " + std::to_string(lender) +
                        " kept no keys and values for layer " + std::to_string(l));
        k = lent->second.first.get();
        v = lent->second.second.get();
    } else {
        Tensor& positionedKeys = positioned(config.keySource, keys);
        v = &source(config.valueSource, keys);
        if (const DeviceNorm* n = block.valueSlotNorm()) {  // whatever fills the value slot
            normedValues = m_be.create(v->rows(), v->cols());
            m_be.rmsNormHeads(*v, layout.valueWidth(), *n->gamma, m_c.normEps, *normedValues);
            v = normedValues.get();
        }
        // Reformer's unit keys, after rotary positions, in a tensor of their own: under shared-qk
        // the Q slot holds the same projection un-normalised. Applies to cross-attention too.
        if (config.normalizeKeys) {
            unitKeys = m_be.create(positionedKeys.rows(), positionedKeys.cols());
            m_be.normalizeHeads(positionedKeys, headDim, kNormalizeHeadsEps, *unitKeys);
        }
        k = unitKeys ? unitKeys.get() : &positionedKeys;
        if (!cross && m_c.lendsKeyValues(l)) m_lentKeyValues[l] = {copyOf(*k), copyOf(*v)};
    }
    std::unique_ptr<Tensor> whole[3];  // every token's q, k, v: kept rows, then the new ones
    if (kept > 0) {
        if (static_cast<int>(m_kept.vectors->size()) <= l)
            throw Error("internal error: the kept tokens' q, k and v are missing");
        const LayerVectors& earlier = (*m_kept.vectors)[l];
        q = (whole[0] = withKeptRows(*earlier.query, *q)).get();
        k = (whole[1] = withKeptRows(*earlier.key, *k)).get();
        v = (whole[2] = withKeptRows(*earlier.value, *v)).get();
    }

    if (m_c.keyIndexer.present() && !cross) {  // sparse attention: the keys each query keeps
        if (bias || kept > 0 || !latent)
            throw Error("internal error: sparse attention with a position bias or kept tokens");
        if (!m_c.kindOf(l).reusesKeys) {
            KeySelection chosen =
                selectKeys(m_be, m_c, *block.latent, queries, latent->queryLatent(queries));
            m_selectedKeys = std::move(chosen.keys);
            m_selectionBias = selectionBias(m_be, m_selectedKeys);
            if (m_request.capture.includesLayer(l)) traced.indexerScores = std::move(chosen.scores);
        }
        if (!m_selectionBias)
            throw Error("internal error: a layer reuses keys no earlier indexer kept");
        if (m_request.capture.includesLayer(l)) traced.selectedKeys = m_selectedKeys;
        bias = m_selectionBias.get();
    }
    const int n = q->rows();
    const AttentionCapture capture = captureInto(l, n, k->rows(), kept, traced);
    AttentionOptions options{mask.causal,      config.maskSelf,    config.scaleOutside,
                             config.transform, m_c.attentionScale, m_c.attentionSoftCap,
                             mask.window};
    if (cross) {  // a target token is not a source one, and S is not square
        options.maskSelf = false;
        options.transform = ScoreTransform::None;
    }
    options.reach = mask.reach;
    options.chunk = mask.chunk;
    options.positionBias = bias;
    options.sinks = block.sinks;
    options.firstQuery = kept;
    auto attended = m_be.create(n - kept, m_c.heads * layout.valueWidth());
    m_be.attention(*q, *k, *v, layout, options, *attended, &capture);
    traced.layout = layout;
    if (m_request.capture.keepsVectors(l)) keepSlotVectors(m_be, *q, *k, *v, traced);
    if (m_kept.keep && !cross) {
        if (static_cast<int>(m_kept.keep->size()) <= l) m_kept.keep->resize(l + 1);
        (*m_kept.keep)[l] = {keptCopy(whole[0], *q), keptCopy(whole[1], *k),
                             keptCopy(whole[2], *v)};
    }
    if (block.gate && !cross) gateOutput(l, *fromQueries.apply(*block.gate), *attended, traced);
    return project ? linear(block.output, *attended) : nullptr;
}

std::unique_ptr<Tensor> LayerRunner::copyOf(const Tensor& t) const {
    auto copy = m_be.create(t.rows(), t.cols());
    m_be.copyRows(t, 0, t.rows(), *copy, 0);
    return copy;
}

std::unique_ptr<Tensor> LayerRunner::withKeptRows(const Tensor& earlier,
                                                  const Tensor& added) const {
    const int kept = m_kept.tokens;
    if (earlier.cols() != added.cols() || earlier.rows() < kept)
        throw Error("internal error: the kept tokens' q, k or v has another shape");
    auto whole = m_be.create(kept + added.rows(), added.cols());
    m_be.copyRows(earlier, 0, kept, *whole, 0);
    m_be.copyRows(added, 0, added.rows(), *whole, kept);
    return whole;
}

std::unique_ptr<Tensor> LayerRunner::keptCopy(std::unique_ptr<Tensor>& owned,
                                              const Tensor& used) const {
    if (owned.get() == &used) return std::move(owned);
    return copyOf(used);
}

AttentionCapture LayerRunner::captureInto(int l, int n, int keys, int kept,
                                          LayerTrace& traced) const {
    traced.scores.resize(m_c.heads);
    traced.probabilities.resize(m_c.heads);
    AttentionCapture capture;
    capture.scores.assign(m_c.heads, nullptr);
    capture.probabilities.assign(m_c.heads, nullptr);
    const CaptureSelection& wanted = m_request.capture;
    for (int head = 0; head < m_c.heads; ++head) {
        if (!wanted.includes(l, head)) continue;
        if (wanted.scores)
            capture.scores[head] = keptBlock(l, &LayerTrace::scores, head, n, keys, kept, traced);
        if (wanted.probabilities)
            capture.probabilities[head] =
                keptBlock(l, &LayerTrace::probabilities, head, n, keys, kept, traced);
    }
    return capture;
}

float* LayerRunner::keptBlock(int l, std::vector<RowMatrixXf> LayerTrace::*matrices, int head,
                              int n, int keys, int kept, LayerTrace& traced) const {
    RowMatrixXf& matrix = (traced.*matrices)[head];
    matrix.resize(n, keys);
    if (kept > 0)
        matrix.topLeftCorner(kept, kept) =
            (m_kept.trace->layers()[l].*matrices)[head].topLeftCorner(kept, kept);
    return matrix.data();
}

}  // namespace qkv
