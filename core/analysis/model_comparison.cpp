#include "core/analysis/model_comparison.h"

#include <algorithm>
#include <cmath>

#include "core/model/forward.h"
#include "core/util/error.h"

namespace qkv {
namespace {

// The largest total variation between corresponding rows of two attention matrices.
double largestRowChange(const RowMatrixXf& a, const RowMatrixXf& b) {
    double largest = 0;
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        largest = std::max(
            largest, 0.5 * (a.row(i).cast<double>() - b.row(i).cast<double>()).cwiseAbs().sum());
    return largest;
}

}  // namespace

double ModelComparison::largestAttentionChange() const {
    double largest = 0;
    for (const auto& layer : layers)
        for (const HeadChange& h : layer) largest = std::max(largest, h.attentionChange);
    return largest;
}

void requireComparable(const Model& a, const Model& b) {
    const Architecture &x = a.architecture(), &y = b.architecture();
    auto differ = [&](const std::string& what, const std::string& first,
                      const std::string& second) {
        throw Error(a.name() + " and " + b.name() + " are not checkpoints of one model: " + what +
                    " " + first + " against " + second);
    };
    if (x.family != y.family) differ("architecture", x.family, y.family);
    if (x.isEncoderDecoder())
        differ("encoder-decoder models are not compared yet:", x.family, y.family);
    for (const auto& [what, p, q] :
         {std::tuple{"layers", x.layers, y.layers}, std::tuple{"heads", x.heads, y.heads},
          std::tuple{"d_model", x.dModel, y.dModel},
          std::tuple{"vocabulary", x.vocabSize, y.vocabSize}})
        if (p != q) differ(what, std::to_string(p), std::to_string(q));
    for (int l = 0; l < x.layers; ++l)
        if (x.headDimOf(l) != y.headDimOf(l) || x.kvHeadsOf(l) != y.kvHeadsOf(l))
            differ("heads of layer " + std::to_string(l), std::to_string(x.headDimOf(l)) + " wide",
                   std::to_string(y.headDimOf(l)) + " wide");
}

void addComparisonMetrics(ModelMetrics& ours, const AttentionTrace& ourTrace,
                          const ModelMetrics& theirs, const AttentionTrace& theirTrace) {
    if (ours.layers.size() != theirs.layers.size())
        throw Error("the two checkpoints' metrics have different layer counts");
    for (size_t l = 0; l < ours.layers.size(); ++l) {
        std::vector<HeadMetrics>& heads = ours.layers[l].heads;
        const std::vector<HeadMetrics>& other = theirs.layers[l].heads;
        if (heads.size() != other.size())
            throw Error("the two checkpoints' metrics have different head counts");
        for (size_t h = 0; h < heads.size(); ++h) {
            const int layer = static_cast<int>(l), head = static_cast<int>(h);
            heads[h].wqkSymmetryChange = other[h].wqkSymmetry - heads[h].wqkSymmetry;
            if (ourTrace.hasProbabilities(layer, head) && theirTrace.hasProbabilities(layer, head))
                heads[h].attentionChange = largestRowChange(ourTrace.probabilities(layer, head),
                                                            theirTrace.probabilities(layer, head));
        }
    }
}

ModelComparison compareModels(const Model& a, const Model& b, const std::vector<int>& ids,
                              Backend& backendA, Backend& backendB, const Progress& progress) {
    requireComparable(a, b);
    ForwardRequest request;
    request.ids = ids;
    request.capture.scores = false;
    request.logits = LogitsMode::None;
    const ForwardResult ra = ForwardPass(a, backendA).run(request);
    const ForwardResult rb = ForwardPass(b, backendB).run(request);
    AnalysisOptions options;
    options.copyingScores = false;
    const int layers = a.architecture().layers;
    auto step = [&](int offset) {
        return [&, offset](int done, int) {
            if (progress) progress(offset + done, 2 * layers);
        };
    };
    const ModelMetrics ma = analyzeModel(a, WConfiguration{}, nullptr, nullptr, step(0), options);
    const ModelMetrics mb =
        analyzeModel(b, WConfiguration{}, nullptr, nullptr, step(layers), options);
    ModelMetrics compared = ma;
    addComparisonMetrics(compared, ra.trace, mb, rb.trace);
    ModelComparison out;
    for (int l = 0; l < layers; ++l) {
        std::vector<HeadChange>& heads = out.layers.emplace_back();
        for (int h = 0; h < a.architecture().heads; ++h)
            heads.push_back({compared.layers[l].heads[h].attentionChange.value_or(0),
                             ma.layers[l].heads[h].wqkSymmetry, mb.layers[l].heads[h].wqkSymmetry});
    }
    return out;
}

}  // namespace qkv
