#include "ui/compute/compute_types.h"

namespace qkv::ui {

namespace {

QStringList labelsOf(const std::vector<ShownToken>& tokens) {
    QStringList out;
    out.reserve(static_cast<qsizetype>(tokens.size()));
    for (const ShownToken& t : tokens) out.append(t.label);
    return out;
}

}  // namespace

std::vector<int> idsOf(const std::vector<ShownToken>& tokens) {
    std::vector<int> ids;
    ids.reserve(tokens.size());
    for (const ShownToken& t : tokens) ids.push_back(t.id);
    return ids;
}

QStringList TraceSnapshot::labels() const { return labelsOf(tokens); }
QStringList TraceSnapshot::keyLabels() const { return labelsOf(columnTokens()); }

}  // namespace qkv::ui
