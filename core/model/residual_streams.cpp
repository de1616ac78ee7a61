#include "core/model/residual_streams.h"

#include <cmath>
#include <numeric>

#include "core/model/dense_layers.h"

namespace qkv {
namespace {

RowMatrixXf downloaded(Backend& be, const Tensor& t) {
    RowMatrixXf host(t.rows(), t.cols());
    be.download(t, host.data());
    return host;
}

std::unique_ptr<Tensor> uploaded(Backend& be, const RowMatrixXf& host) {
    return be.upload(host.data(), static_cast<int>(host.rows()), static_cast<int>(host.cols()));
}

std::vector<int> everyRow(int n) {
    std::vector<int> rows(n);
    std::iota(rows.begin(), rows.end(), 0);
    return rows;
}

// Rows of `streams` [first, first + n) as a tensor of their own.
std::unique_ptr<Tensor> rowsOf(Backend& be, const Tensor& streams, int first, int n) {
    auto out = be.create(n, streams.cols());
    be.copyRows(streams, first, n, *out, 0);
    return out;
}

// Each row of `y` times x0's RMS over its own, floored at √1e-5 (transformers' order:
// y · target / magnitude).
void rescaleTo(const RowMatrixXf& x0, RowMatrixXf& y) {
    for (Eigen::Index i = 0; i < y.rows(); ++i) {
        const float target = std::sqrt(x0.row(i).squaredNorm() / static_cast<float>(x0.cols()));
        const float magnitude =
            std::sqrt(std::max(y.row(i).squaredNorm() / static_cast<float>(y.cols()), 1e-5f));
        y.row(i) = (y.row(i) * target) / magnitude;
    }
}

// The router's coefficients for each row of x: tanh(router(norm(x) / d_model)) times the stored
// [outputs][streams] matrix.
RowMatrixXf coefficients(const LayerRunner& runner, const DeviceLayer& layer, const Tensor& x,
                         const std::vector<float>& stored) {
    Backend& be = runner.backend();
    const Architecture& c = runner.architecture();
    const int streams = c.streams.count;
    auto normed = be.create(x.rows(), x.cols());
    runner.norm(layer.streamRouterNorm, x, *normed);
    const RowMatrixXf routed = downloaded(be, *runner.linear(layer.streamRouter, *normed));
    const RowMatrixXf r = (routed * (1.0f / static_cast<float>(c.dModel))).array().tanh();
    const int outputs = static_cast<int>(stored.size()) / streams;
    const Eigen::Map<const RowMatrixXf> w(stored.data(), outputs, streams);
    return r * w.transpose();
}

}  // namespace

std::unique_ptr<Tensor> perLayerInputs(const LayerRunner& runner, const ModelWeights& weights,
                                       const DeviceModel& device, const std::vector<int>& ids,
                                       const Tensor& embedded) {
    Backend& be = runner.backend();
    const Architecture& c = runner.architecture();
    const StreamPartsOf<DeviceParts>& parts = device.streamParts;
    const int n = static_cast<int>(ids.size()), width = c.perLayerInputs.width;
    const int columns = c.layers * width;
    auto projected = runner.linear(parts.perLayerProjection, embedded);
    auto inputs = be.create(n, columns);
    be.rmsNormHeads(*projected, width, *parts.perLayerNorm.gamma, c.normEps, *inputs);
    // Ids beyond the table's rows read row 0, as transformers masks them.
    const MatrixView& table = weights.perLayerEmbedding;
    const float scale = std::sqrt(static_cast<float>(width));
    RowMatrixXf rows(n, columns);
    for (int i = 0; i < n; ++i) {
        const int id = ids[i] < c.perLayerInputs.vocab ? ids[i] : 0;
        for (int j = 0; j < columns; ++j) rows(i, j) = table.at(id, j) * scale;
    }
    be.add(*inputs, *uploaded(be, rows));
    scaleInPlace(be, *inputs, 1.0f / std::sqrt(2.0f));
    return inputs;
}

std::unique_ptr<Tensor> streamsFrom(const LayerRunner& runner, const DeviceModel& device,
                                    const Tensor& embedded) {
    Backend& be = runner.backend();
    const int n = embedded.rows(), count = runner.architecture().streams.count;
    // One wait for x0 and every projection of it.
    RowMatrixXf x0(n, embedded.cols());
    be.enqueueDownload(embedded, x0.data());
    std::vector<std::unique_ptr<Tensor>> projected;
    std::vector<RowMatrixXf> up(count);
    for (int i = 1; i < count; ++i) {
        projected.push_back(runner.linear(device.streamParts.streamUp.at(i - 1), embedded));
        up[i].resize(n, embedded.cols());
        be.enqueueDownload(*projected.back(), up[i].data());
    }
    be.synchronize();
    RowMatrixXf streams(static_cast<Eigen::Index>(n) * count, x0.cols());
    streams.topRows(n) = x0;
    for (int i = 1; i < count; ++i) {
        rescaleTo(x0, up[i]);
        streams.middleRows(static_cast<Eigen::Index>(i) * n, n) = up[i];
    }
    return uploaded(be, streams);
}

std::unique_ptr<Tensor> mergedStreams(const LayerRunner& runner, const DeviceModel& device,
                                      const Tensor& streams) {
    Backend& be = runner.backend();
    const int count = runner.architecture().streams.count, n = streams.rows() / count;
    // One wait for the first stream and every other one projected back.
    auto firstRows = rowsOf(be, streams, 0, n);
    RowMatrixXf first(n, streams.cols());
    be.enqueueDownload(*firstRows, first.data());
    std::vector<std::unique_ptr<Tensor>> projected;
    std::vector<RowMatrixXf> down(count);
    for (int i = 1; i < count; ++i) {
        projected.push_back(
            runner.linear(device.streamParts.streamDown.at(i - 1), *rowsOf(be, streams, i * n, n)));
        down[i].resize(n, streams.cols());
        be.enqueueDownload(*projected.back(), down[i].data());
    }
    be.synchronize();
    RowMatrixXf sum = first;
    for (int i = 1; i < count; ++i) {
        rescaleTo(first, down[i]);
        sum += down[i];
    }
    return uploaded(be, RowMatrixXf(sum / static_cast<float>(count)));
}

std::unique_ptr<Tensor> LayerRunner::sparseGatedMlp(int l, const DeviceLayer& layer,
                                                    const Tensor& x) const {
    auto gate = linear(layer.mlpGate, x);
    if (const float z = m_c.kindOf(l).gateCutoff; z > 0.0f) {
        auto kept = m_be.create(gate->rows(), gate->cols());
        m_be.gaussianTopK(*gate, z, *kept);
        gate = std::move(kept);
    }
    auto hidden = linear(layer.mlpIn, x);
    m_be.glu(*gate, *hidden, m_c.activation);
    return linear(layer.mlpOut, *hidden);
}

void LayerRunner::runStreams(int l, const DeviceLayer& layer, Tensor& streams,
                             LayerTrace& traced) const {
    const int count = m_c.streams.count, active = m_c.streams.active;
    const int n = streams.rows() / count, d = m_c.dModel;
    const std::vector<int> rows = everyRow(n);
    auto column = [&](const RowMatrixXf& m, int j, float plus) {
        std::vector<float> values(n);
        for (int i = 0; i < n; ++i) values[i] = m(i, j) + plus;
        return values;
    };
    // Predict: stream i := x_i + Σ_j C[i·count + j] x_j, C from the active stream's router.
    std::vector<std::unique_ptr<Tensor>> x(count), predicted(count);
    for (int i = 0; i < count; ++i) x[i] = rowsOf(m_be, streams, i * n, n);
    const RowMatrixXf predict =
        coefficients(*this, layer, *x[active], layer.predictionCoefficients);
    for (int i = 0; i < count; ++i) {
        predicted[i] = copyOf(*x[i]);
        for (int j = 0; j < count; ++j)
            m_be.addWeightedRows(*x[j], rows, column(predict, i * count + j, 0.0f), *predicted[i]);
    }
    // The active stream through the layer: attention and LAuReL from one norm, sandwich norms.
    const Tensor& current = *predicted[active];
    auto normed = m_be.create(n, d);
    norm(layer.attentionNorm, current, *normed);
    auto laurel = copyOf(*normed);
    if (layer.laurelDown.weight) {
        auto up = linear(layer.laurelUp, *linear(layer.laurelDown, *normed));
        auto upNormed = m_be.create(n, d);
        norm(layer.laurelNorm, *up, *upNormed);
        m_be.add(*laurel, *upNormed);
    }
    auto attended = mixTokens(l, layer, *normed, traced);
    auto out = copyOf(current);
    norm(layer.attentionOutputNorm, *attended, *normed);
    m_be.add(*out, *normed);
    m_be.add(*out, *laurel);
    scaleInPlace(m_be, *out, 1.0f / std::sqrt(2.0f));
    norm(layer.mlpNorm, *out, *normed);
    auto fed = sparseGatedMlp(l, layer, *normed);
    norm(layer.mlpOutputNorm, *fed, *normed);
    m_be.add(*out, *normed);
    // Correct: stream i := predicted_i + (out − predicted_active) · (C_i + 1).
    const RowMatrixXf correct = coefficients(*this, layer, *out, layer.correctionCoefficients);
    auto change = copyOf(*out);
    m_be.addWeightedRows(current, rows, std::vector<float>(n, -1.0f), *change);
    for (int i = 0; i < count; ++i)
        m_be.addWeightedRows(*change, rows, column(correct, i, 1.0f), *predicted[i]);
    // The per-layer input, gated by the corrected active stream, joins streams 1 and on.
    if (m_perLayerInputs && layer.perLayerGate.weight) {
        auto gated = copyOf(*predicted[active]);
        if (!layer.streamGain.empty()) {
            RowMatrixXf gain(n, d);
            for (int i = 0; i < n; ++i)
                gain.row(i) = Eigen::Map<const Eigen::RowVectorXf>(layer.streamGain.data(), d);
            m_be.glu(*uploaded(m_be, gain), *gated, Activation::ProductGlu);
        }
        auto gate = linear(layer.perLayerGate, *gated);
        const int width = m_c.perLayerInputs.width;
        std::vector<int> columns(width);
        std::iota(columns.begin(), columns.end(), l * width);
        auto input = m_be.create(n, width);
        m_be.gatherColumns(*m_perLayerInputs, nullptr, columns, *input);
        m_be.glu(*gate, *input, m_c.activation);
        auto projected = linear(layer.perLayerProjection, *input);
        norm(layer.perLayerNorm, *projected, *normed);
        for (int i = 1; i < count; ++i) m_be.add(*predicted[i], *normed);
    }
    for (int i = 0; i < count; ++i) m_be.copyRows(*predicted[i], 0, n, streams, i * n);
}

}  // namespace qkv
