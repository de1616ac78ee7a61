#include "ui/export/model_provenance.h"

#include "core/io/hub_cache.h"
#include "core/util/error.h"
#include "ui/export/weights_fingerprint.h"

namespace qkv::ui {

FigureProvenance modelProvenance(const Model& model) {
    FigureProvenance p;
    p.model = model.name();
    // A cached snapshot's folder is named by its commit.
    const std::string folderName = model.folder().filename().string();
    if (hubIdOfSnapshot(model.folder()) && isCommitHash(folderName)) p.revision = folderName;
    try {
        const WeightsFingerprint weights = weightsFingerprint(model.folder());
        p.weightsHeaderSha256 = weights.headerSha256;
        p.weightsFiles = weights.files;
    } catch (const Error&) {
        // Moved or removed since it was opened: the figure says less rather than fail.
    }
    return p;
}

std::optional<std::string> blockName(const Model& model, AttentionKind kind) {
    if (!model.architecture().isEncoderDecoder()) return std::nullopt;
    switch (kind) {
        case AttentionKind::Self:
            return "encoder";
        case AttentionKind::DecoderSelf:
            return "decoder";
        case AttentionKind::Cross:
            return "cross";
    }
    return std::nullopt;
}

}  // namespace qkv::ui
