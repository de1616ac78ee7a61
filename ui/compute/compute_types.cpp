#include "ui/compute/compute_types.h"

namespace qkv::ui {

QStringList TraceSnapshot::labels() const {
    QStringList out;
    out.reserve(static_cast<qsizetype>(tokens.size()));
    for (const ShownToken& t : tokens) out.append(t.label);
    return out;
}

}  // namespace qkv::ui
