#include "core/backend/op_shapes.h"

#include <string>

#include "core/util/error.h"

namespace qkv {
namespace {

int elements(const Tensor& t) { return t.rows() * t.cols(); }
bool sameShape(const Tensor& a, const Tensor& b) {
    return a.rows() == b.rows() && a.cols() == b.cols();
}
bool inHeads(const Tensor& x, int headDim) { return headDim > 0 && x.cols() % headDim == 0; }

}  // namespace

void OpShapes::require(bool ok, const char* op) const {
    if (!ok) throw Error(std::string("internal error: shape mismatch in ") + m_backend + " " + op);
}

void OpShapes::linear(const Tensor& x, const Tensor& w, const Tensor* bias, const Tensor& y) const {
    require(x.cols() == w.rows() && y.rows() == x.rows() && y.cols() == w.cols() &&
                (!bias || elements(*bias) == w.cols()),
            "linear");
}

void OpShapes::layerNorm(const Tensor& x, const Tensor& gamma, const Tensor* beta,
                         const Tensor& y) const {
    require(
        sameShape(x, y) && elements(gamma) == x.cols() && (!beta || elements(*beta) == x.cols()),
        "layerNorm");
}

void OpShapes::rmsNorm(const Tensor& x, const Tensor& gamma, const Tensor& y) const {
    require(sameShape(x, y) && elements(gamma) == x.cols(), "rmsNorm");
}

void OpShapes::rmsNormHeads(const Tensor& x, int headDim, const Tensor& gamma,
                            const Tensor& y) const {
    require(sameShape(x, y) && inHeads(x, headDim) &&
                (elements(gamma) == headDim || elements(gamma) == x.cols()),
            "rmsNormHeads");
}

void OpShapes::gaussianTopK(const Tensor& x, const Tensor& y) const {
    require(sameShape(x, y), "gaussianTopK");
}

void OpShapes::normalizeHeads(const Tensor& x, int headDim, const Tensor& y) const {
    require(sameShape(x, y) && inHeads(x, headDim), "normalizeHeads");
}

void OpShapes::rope(const Tensor& x, int headDim, int rotaryDims, int firstPosition,
                    const Tensor& y) const {
    require(sameShape(x, y) && inHeads(x, headDim) && rotaryDims > 0 && rotaryDims <= headDim &&
                firstPosition >= 0,
            "rope");
}

void OpShapes::causalConv(const Tensor& x, const Tensor& taps, const Tensor* bias,
                          const Tensor& y) const {
    require(sameShape(x, y) && x.cols() > 0 && elements(taps) >= x.cols() &&
                elements(taps) % x.cols() == 0 && (!bias || elements(*bias) == x.cols()),
            "causalConv");
}

void OpShapes::stateSpace(const Tensor& x, const Tensor& B, const Tensor& C, const Tensor& dt,
                          const Tensor& aLog, const Tensor& dtBias, const Tensor& D,
                          const StateSpaceLayout& l, const Tensor& out) const {
    const int n = x.rows();
    require(l.heads > 0 && l.groups > 0 && l.heads % l.groups == 0 && l.headDim > 0 &&
                l.stateDim > 0 && x.cols() == l.heads * l.headDim && sameShape(x, out) &&
                B.rows() == n && B.cols() == l.groups * l.stateDim && sameShape(B, C) &&
                dt.rows() == n && dt.cols() == l.heads && elements(aLog) == l.heads &&
                elements(dtBias) == l.heads && elements(D) == l.heads && l.dtMin <= l.dtMax,
            "stateSpace");
}

void OpShapes::gatedDeltaRule(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& b,
                              const Tensor& a, const Tensor& aLog, const Tensor& dtBias,
                              const DeltaRuleLayout& l, const Tensor& out) const {
    const int n = q.rows();
    require(l.keyHeads > 0 && l.valueHeads % l.keyHeads == 0 && l.keyDim > 0 && l.valueDim > 0 &&
                sameShape(q, k) && q.cols() == l.keyHeads * l.keyDim && v.rows() == n &&
                v.cols() == l.valueHeads * l.valueDim && sameShape(v, out) && b.rows() == n &&
                b.cols() == l.valueHeads && sameShape(a, b) && elements(aLog) == l.valueHeads &&
                elements(dtBias) == l.valueHeads,
            "gatedDeltaRule");
}

void OpShapes::activate(Activation activation) const {
    if (readsAGate(activation))
        throw Error("internal error: a gated activation is a two-input op (glu)");
    if (activation == Activation::XIelu)
        throw Error("internal error: xIELU takes its layer's parameters (xielu)");
}

void OpShapes::glu(const Tensor& gate, const Tensor& up, Activation gated) const {
    require(sameShape(gate, up) && readsAGate(gated), "glu");
}

void OpShapes::clampedSwiGlu(const Tensor& gateUp, const Tensor& out) const {
    require(gateUp.cols() == 2 * out.cols() && gateUp.rows() == out.rows(), "clampedSwiGlu");
}

void OpShapes::add(const Tensor& accumulator, const Tensor& x) const {
    require(sameShape(accumulator, x), "add");
}

void OpShapes::copyRows(const Tensor& source, int first, int count, const Tensor& destination,
                        int destinationFirst) const {
    require(first >= 0 && count >= 0 && first + count <= source.rows() && destinationFirst >= 0 &&
                destinationFirst + count <= destination.rows() &&
                destination.cols() == source.cols(),
            "copyRows");
}

void OpShapes::gatherRows(const Tensor& source, const std::vector<int>& rows,
                          const Tensor& destination) const {
    require(rowMoveAllowed(rows, source, destination), "gatherRows");
}

void OpShapes::addWeightedRows(const Tensor& source, const std::vector<int>& rows,
                               const std::vector<float>& weights, const Tensor& destination) const {
    require(weights.size() == rows.size() && rowMoveAllowed(rows, destination, source),
            "addWeightedRows");
}

void OpShapes::gatherColumns(const Tensor& first, const Tensor* second,
                             const std::vector<int>& columns, const Tensor& destination) const {
    require(columnGatherAllowed(first, second, columns, destination), "gatherColumns");
}

}  // namespace qkv
