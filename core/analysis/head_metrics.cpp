#include "core/analysis/head_metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "core/analysis/hidden_keys.h"
#include "core/analysis/latent_forms.h"
#include "core/analysis/matrix_metrics.h"
#include "core/analysis/ov_circuit.h"
#include "core/analysis/round_trip_cache.h"
#include "core/backend/gemm.h"
#include "core/model/applicable_configurations.h"
#include "core/model/forward.h"
#include "core/util/error.h"
#include "core/util/thread_pool.h"

namespace qkv {
namespace {

void checkTrace(const Architecture& c, const AttentionTrace* trace) {
    if (trace && (trace->layerCount() != c.layers || trace->headCount() != c.mostHeads()))
        throw Error("attention trace of " + std::to_string(trace->layerCount()) + " layers x " +
                    std::to_string(trace->headCount()) + " heads does not match the model (" +
                    std::to_string(c.layers) + " x " + std::to_string(c.mostHeads()) + ")");
}

// The slot weights of one layer, each converted and decomposed once: under GQA or a tied
// configuration several slots read the same block (the same memory) and share its factor, and the
// heads that read the same key and value blocks share what only those decide.
class LayerFactors {
  public:
    // `roundTrip` is W_U W_E in float32 for the copying score (null: none).
    LayerFactors(const Model& model, const WConfiguration& config, int layer,
                 const AnalysisOptions& options, const Eigen::MatrixXf* roundTrip)
        : m_model(model),
          m_config(config),
          m_layer(layer),
          m_kind(options.kind),
          m_pairing(options.pairing),
          m_heads(architectureOf(model, options.kind).headsOf(layer)),
          m_mask(architectureOf(model, options.kind).keyMask(layer)),
          m_roundTrip(roundTrip) {
        if (m_kind == AttentionKind::Self && model.architecture().latent.present())
            m_latent.emplace(latentHeadForms(model, layer));
    }

    // Decomposes every block the layer's heads read (a latent head's form computed there), and
    // computes what heads share, spread over the pool's threads; the accessors below are then
    // only lookups and may be called from several threads.
    void prepare(ThreadPool& pool) {
        std::vector<Block> blocks;
        std::set<const void*> seen;
        for (int head = 0; head < m_heads; ++head)
            for (Projection p : {Projection::Query, Projection::Key, Projection::Value}) {
                const Block block = blockOf(head, p);
                if (!m_factors.count(block.id) && seen.insert(block.id).second)
                    blocks.push_back(block);
            }
        std::vector<std::optional<FactorBasis>> factors(blocks.size());
        pool.parallelFor(static_cast<int>(blocks.size()), [&](int, int first, int last) {
            for (int i = first; i < last; ++i) factors[i].emplace(blocks[i].matrix());
        });
        for (size_t i = 0; i < blocks.size(); ++i)
            m_factors.emplace(blocks[i].id, std::move(*factors[i]));

        std::vector<int> firstReaders;  // one head per distinct key and value pair
        std::set<std::pair<const void*, const void*>> pairs;
        for (int head = 0; head < m_heads; ++head)
            if (pairs.insert(keyValuePair(head)).second) firstReaders.push_back(head);
        std::vector<SharedByKeyValue> shared(firstReaders.size());
        pool.parallelFor(static_cast<int>(firstReaders.size()), [&](int, int first, int last) {
            for (int i = first; i < last; ++i) shared[i] = computeShared(firstReaders[i]);
        });
        for (size_t i = 0; i < firstReaders.size(); ++i)
            m_shared.emplace(keyValuePair(firstReaders[i]), std::move(shared[i]));
    }

    const FactorBasis& slot(int head, Projection slot) {
        const Block block = blockOf(head, slot);
        auto it = m_factors.find(block.id);
        if (it == m_factors.end()) it = m_factors.emplace(block.id, block.matrix()).first;
        return it->second;
    }

    // The subspace similarity of the head's K and V slots.
    double keyValueSimilarity(int head) { return shared(head).keyValueSimilarity; }
    // (W_U W_E) W_V^h for the copying score; null without one.
    const Eigen::MatrixXd* roundTripValue(int head) {
        const SharedByKeyValue& s = shared(head);
        return s.roundTripValue ? &*s.roundTripValue : nullptr;
    }

    // Latent attention's rotary part under the configuration; nullopt for other attention.
    // The layer's key mask, and whether the configuration hides each token from itself.
    const KeyMask& keyMask() const { return m_mask; }
    bool masksSelf() const { return m_config.maskSelf; }

    std::optional<HeadMetrics::RotaryPart> rotaryPart(int head) const {
        if (!m_latent) return std::nullopt;
        // The query's rotary form is made once, also where both slots read it (shared-qk).
        const bool readsQuery =
            m_config.querySource == Projection::Query || m_config.keySource == Projection::Query;
        const Eigen::MatrixXd query = readsQuery ? m_latent->queryRotary(head) : Eigen::MatrixXd();
        auto rotary = [&](Projection source) -> const Eigen::MatrixXd& {
            return source == Projection::Query ? query : m_latent->keyRotary;
        };
        const Eigen::MatrixXd& q = rotary(m_config.querySource);
        const Eigen::MatrixXd& k = rotary(m_config.keySource);
        return HeadMetrics::RotaryPart{productSpectrum(q, k).rank, productSymmetryScore(q, k)};
    }

    // Latent attention's layer form A Bᵀ through its shared latents (latentLayerForm); nullopt
    // for other attention, and where norm gains join each head's query factor.
    std::optional<std::pair<Eigen::MatrixXd, Eigen::MatrixXd>> latentLayerForm() const {
        if (!m_latent || scoreGains(0)) return std::nullopt;
        return qkv::latentLayerForm(*m_latent, m_config);
    }

    std::optional<Eigen::VectorXd> scoreGains(int head) const {
        return headScoreGains(m_model, m_config, m_layer, head, m_kind, m_pairing);
    }

    // The head's output rows W_O^h (d_k x d_model), which no configuration changes.
    Eigen::MatrixXd outputRows(int head) const {
        return toDouble(headOutputRows(m_model, m_layer, head, m_kind));
    }

  private:
    // A slot's weights: a stored block (shared by the slots and heads that read it), or a latent
    // head's form, computed when its factor is made (in the pool's threads).
    struct Block {
        const void* id;  // the block's first element, or the head's own right factor
        HeadProjection stored;
        const LatentHeadForms* latent = nullptr;
        Projection projection = Projection::Query;
        int head = 0;
        Eigen::MatrixXd matrix() const {
            return latent ? latent->form(projection, head) : stored.toDouble();
        }
    };
    Block blockOf(int head, Projection slot) const {
        if (!m_latent)
            return blockOf(
                headProjection(m_model, m_config, m_layer, head, slot, m_kind, m_pairing));
        const Projection source = m_config.sourceOf(slot);
        return {&m_latent->own(source, head), {}, &*m_latent, source, head};
    }
    static Block blockOf(HeadProjection stored) {
        const void* id = stored.view.data;
        return {id, std::move(stored)};
    }

    struct SharedByKeyValue {
        double keyValueSimilarity = 0;
        std::optional<Eigen::MatrixXd> roundTripValue;
    };
    std::pair<const void*, const void*> keyValuePair(int head) const {
        return {blockOf(head, Projection::Key).id, blockOf(head, Projection::Value).id};
    }
    SharedByKeyValue computeShared(int head) {
        SharedByKeyValue s;
        const FactorBasis& value = slot(head, Projection::Value);
        s.keyValueSimilarity = subspaceSimilarity(slot(head, Projection::Key), value);
        if (m_roundTrip) {
            // In float32 (SGEMM, over twice DGEMM's rate): W_V's values are float32 exactly, and
            // W_U W_E carries 1.4e-7 of rounding already (ov_circuit.cpp). The copying scores
            // move by about 2e-8 against a double product (the shared models' test).
            const Eigen::MatrixXf product = *m_roundTrip * value.matrix().cast<float>();
            s.roundTripValue.emplace(product.cast<double>());
        }
        return s;
    }
    const SharedByKeyValue& shared(int head) {
        auto it = m_shared.find(keyValuePair(head));
        if (it == m_shared.end())
            it = m_shared.emplace(keyValuePair(head), computeShared(head)).first;
        return it->second;
    }

    const Model& m_model;
    const WConfiguration& m_config;
    int m_layer;
    AttentionKind m_kind;
    GqaPairing m_pairing;
    int m_heads;
    KeyMask m_mask;
    const Eigen::MatrixXf* m_roundTrip;
    std::optional<LatentHeadForms> m_latent;
    std::map<const void*, FactorBasis> m_factors;  // keyed by Block::id
    std::map<std::pair<const void*, const void*>, SharedByKeyValue> m_shared;
};

// What the trace gives of one head, where captured; `mask` is the layer's (null: unknown).
void addTraceMetrics(HeadMetrics& m, const AttentionTrace& trace, int layer, int head,
                     const KeyMask* mask, bool maskSelf) {
    // Only a square score matrix has a symmetry (not cross-attention's target x source).
    if (trace.hasScores(layer, head) && trace.tokens() == trace.keyTokens())
        m.scoreSymmetry = symmetryScore(trace.scores(layer, head).cast<double>());
    if (trace.hasSinks() && trace.hasProbabilities(layer, head)) {
        const std::vector<double> shares = sinkShares(trace.probabilities(layer, head));
        double sum = 0;
        for (double s : shares) sum += s;
        m.sinkShare = shares.empty() ? 0.0 : sum / static_cast<double>(shares.size());
    }
    if (trace.hasProbabilities(layer, head))
        if (const auto reach = attentionReach(trace.probabilities(layer, head))) {
            m.meanDistance = reach->meanDistance;
            m.selfShare = reach->selfShare;
        }
    const std::vector<std::vector<int>>* kept = selectedKeys(trace, layer);
    if (mask && (hidesKeys(*mask) || kept) && !trace.isImplicit(layer) &&
        trace.hasScores(layer, head) && trace.hasProbabilities(layer, head) && trace.tokens() > 0) {
        const HiddenKeys hidden =
            whatTheMaskHides(trace.scores(layer, head), trace.probabilities(layer, head), *mask,
                             maskSelf, trace.hasSinks(), kept);
        double sum = 0;
        for (double d : hidden.dropped) sum += d;
        m.droppedMass = sum / static_cast<double>(hidden.dropped.size());
        if (kept) m.indexerAgreement = indexerAgreement(trace.scores(layer, head), *kept);
    }
}

HeadMetrics headMetrics(LayerFactors& factors, int layer, int head, const AttentionTrace* trace) {
    const FactorBasis& q = factors.slot(head, Projection::Query);
    const FactorBasis& k = factors.slot(head, Projection::Key);
    const FactorBasis& v = factors.slot(head, Projection::Value);
    // With QK-norm the bilinear form is W_Q diag(g) W_K^T: the gains join the query factor.
    std::optional<GramFactor> gained;
    if (const auto gains = factors.scoreGains(head))
        gained.emplace(q.matrix() * gains->asDiagonal());
    const GramFactor& form = gained ? *gained : static_cast<const GramFactor&>(q);
    HeadMetrics m;
    const Eigen::MatrixXd kTq = k.matrix().transpose() * form.matrix();  // shared by both below
    const ProductForm product = productForm(form, k, kTq);
    m.wqkSymmetry = product.symmetry;
    m.wqkDirectionality = product.directionality;
    ProductSpectrum spectrum = productSpectrum(form, k, kTq);
    m.wqkRank = spectrum.rank;
    m.wqkSingularValues = std::move(spectrum.singularValues);
    m.eigenPositivity = spectrum.eigenPositivity;
    m.qkSimilarity = subspaceSimilarity(q, k);
    m.qvSimilarity = subspaceSimilarity(q, v);
    m.kvSimilarity = factors.keyValueSimilarity(head);
    OvCircuit ov = ovCircuit(v, factors.outputRows(head), factors.roundTripValue(head));
    m.ovRank = ov.rank;
    m.ovSingularValues = std::move(ov.singularValues);
    m.ovCopyingScore = ov.copyingScore;
    m.rotaryPart = factors.rotaryPart(head);
    if (trace) addTraceMetrics(m, *trace, layer, head, &factors.keyMask(), factors.masksSelf());
    return m;
}

// W_U W_E for the copying scores, as the float32 the per-block products take (null without).
std::optional<Eigen::MatrixXf> roundTripFor(const Model& model, ThreadPool& pool,
                                            const AnalysisOptions& options,
                                            const std::atomic<bool>* cancel = nullptr) {
    if (!options.copyingScores) return std::nullopt;
    const auto product =
        cachedVocabularyRoundTrip(model, pool, {}, options.roundTripProgress, cancel);
    if (!product) return std::nullopt;
    return product->cast<float>();
}

// s(sum_h W_Q^h W_K^h^T) and its directionality. Heads that read the same key block (GQA) are
// merged first, since sum_h Q_h K^T = (sum_h Q_h) K^T: the factors are only as wide as the
// distinct key blocks. A block's width is its factor's own, not the layer's d_k: latent
// attention's forms are the non-rotary part of each head only (latent_forms.h).
void layerWqkMetrics(LayerFactors& factors, const Architecture& c, ThreadPool& pool,
                     LayerMetrics& out) {
    if (const auto latent = factors.latentLayerForm()) {
        const ProductForm product = productForm(latent->first, latent->second, pool);
        out.wqkSymmetry = product.symmetry;
        out.wqkDirectionality = product.directionality;
        return;
    }
    std::vector<const FactorBasis*> keyBlocks;
    std::vector<Eigen::Index> firstColumn;  // of each key block in the stacked factors
    std::vector<int> blockOfHead(c.heads);
    Eigen::Index width = 0;
    for (int head = 0; head < c.heads; ++head) {
        const FactorBasis* key = &factors.slot(head, Projection::Key);
        const auto found = std::find(keyBlocks.begin(), keyBlocks.end(), key);
        blockOfHead[head] = static_cast<int>(found - keyBlocks.begin());
        if (found == keyBlocks.end()) {
            keyBlocks.push_back(key);
            firstColumn.push_back(width);
            width += key->matrix().cols();
        }
    }
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(c.dModel, width);
    Eigen::MatrixXd b(c.dModel, width);
    for (size_t i = 0; i < keyBlocks.size(); ++i)
        b.middleCols(firstColumn[i], keyBlocks[i]->matrix().cols()) = keyBlocks[i]->matrix();
    for (int head = 0; head < c.heads; ++head) {
        const Eigen::MatrixXd& query = factors.slot(head, Projection::Query).matrix();
        const Eigen::MatrixXd& key = keyBlocks[blockOfHead[head]]->matrix();
        if (query.rows() != key.rows() || query.cols() != key.cols())
            throw Error("internal error: head " + std::to_string(head) + "'s W_Q is " +
                        std::to_string(query.cols()) + " wide but its W_K " +
                        std::to_string(key.cols()));
        auto columns = a.middleCols(firstColumn[blockOfHead[head]], key.cols());
        if (const auto gains = factors.scoreGains(head))  // QK-norm: W_Q diag(g)
            columns += query * gains->asDiagonal();
        else
            columns += query;
    }
    const ProductForm product = productForm(a, b, pool);
    out.wqkSymmetry = product.symmetry;
    out.wqkDirectionality = product.directionality;
}

}  // namespace

double median(std::vector<double> values) {
    if (values.empty()) return 0;
    const size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + mid, values.end());
    if (values.size() % 2 == 1) return values[mid];
    return (values[mid] + *std::max_element(values.begin(), values.begin() + mid)) / 2;
}

Architecture architectureOf(const Model& model, AttentionKind kind) {
    const Architecture& c = model.architecture();
    if (kind == AttentionKind::Self) return c;
    if (!c.isEncoderDecoder())
        throw Error(model.name() +
                    " has no decoder or cross-attention: it is not an "
                    "encoder-decoder model");
    return c.decoderArchitecture();
}

ModelMetrics analyzeModel(const Model& model, const WConfiguration& config,
                          const AttentionTrace* trace, const std::atomic<bool>* cancel,
                          const Progress& progress, const AnalysisOptions& options) {
    const Architecture c = architectureOf(model, options.kind);
    checkTrace(c, trace);
    requireConfigurationApplies(c, config);
    ModelMetrics out;
    std::vector<double> layerSymmetries, layerDirectionalities;
    useSingleThreadedBlas();  // the pool's threads are the workers (core/backend/gemm.h)
    ThreadPool pool(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    const std::optional<Eigen::MatrixXf> roundTrip = roundTripFor(model, pool, options, cancel);
    for (int layer = 0; layer < c.layers; ++layer) {
        if (cancel && cancel->load()) throw Cancelled();
        LayerMetrics& metrics = out.layers.emplace_back(LayerMetrics{NAN, NAN, {}});
        if (c.headsOf(layer) > 0) {  // else a block without a token mixer: no heads, no W_QK
            LayerFactors factors(model, config, layer, options, roundTrip ? &*roundTrip : nullptr);
            factors.prepare(pool);
            layerWqkMetrics(factors, c.atLayer(layer), pool, metrics);
            metrics.heads.resize(c.headsOf(layer));
            pool.parallelFor(c.headsOf(layer), [&](int, int first, int last) {
                for (int head = first; head < last; ++head)
                    metrics.heads[head] = headMetrics(factors, layer, head, trace);
            });
            layerSymmetries.push_back(metrics.wqkSymmetry);
            layerDirectionalities.push_back(metrics.wqkDirectionality);
        }
        if (progress) progress(layer + 1, c.layers);
    }
    out.medianLayerWqkSymmetry = median(std::move(layerSymmetries));
    out.medianLayerWqkDirectionality = median(std::move(layerDirectionalities));
    return out;
}

void addTraceMetrics(ModelMetrics& metrics, const AttentionTrace& trace, const Architecture* masks,
                     const WConfiguration& config) {
    for (int l = 0; l < static_cast<int>(metrics.layers.size()) && l < trace.layerCount(); ++l) {
        std::vector<HeadMetrics>& heads = metrics.layers[l].heads;
        const std::optional<KeyMask> mask =
            masks ? std::optional<KeyMask>(masks->keyMask(l)) : std::nullopt;
        for (int h = 0; h < static_cast<int>(heads.size()) && h < trace.headCount(l); ++h)
            addTraceMetrics(heads[h], trace, l, h, mask ? &*mask : nullptr, config.maskSelf);
    }
}

HeadMetrics analyzeHead(const Model& model, const WConfiguration& config, int layer, int head,
                        const AttentionTrace* trace, const AnalysisOptions& options) {
    checkTrace(architectureOf(model, options.kind), trace);
    requireConfigurationApplies(architectureOf(model, options.kind), config);
    ThreadPool pool(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    const std::optional<Eigen::MatrixXf> roundTrip = roundTripFor(model, pool, options);
    LayerFactors factors(model, config, layer, options, roundTrip ? &*roundTrip : nullptr);
    return headMetrics(factors, layer, head, trace);
}

BilinearParameterCount bilinearParameterCount(const Architecture& config,
                                              const WConfiguration& configuration) {
    const long long d = config.dModel;
    const bool one = configuration.querySource == configuration.keySource;
    return {(one ? 1 : 2) * d * config.headDim, d * d, one};
}

}  // namespace qkv
