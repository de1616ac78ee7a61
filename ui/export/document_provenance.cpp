#include "ui/export/document_provenance.h"

#include "ui/document/lab_document.h"
#include "ui/export/model_provenance.h"

namespace qkv::ui {
FigureProvenance documentProvenance(const LabDocument& document, const QString& view,
                                    bool withHead) {
    const Model* model = document.model();
    const auto snapshot = document.snapshot();
    FigureProvenance p = model ? modelProvenance(*model) : FigureProvenance{};
    p.view = view.toStdString();
    p.colorMap = document.colorScheme().sequential.toStdString();
    p.divergingColorMap = document.colorScheme().diverging.toStdString();
    if (!model || !snapshot) return p;
    p.text = snapshot->text.toStdString();
    p.ids = idsOf(snapshot->sourceTokens.empty() ? snapshot->tokens : snapshot->sourceTokens);
    if (model->architecture().isEncoderDecoder()) {
        p.targetText = snapshot->targetText.toStdString();
        p.targetIds = idsOf(snapshot->targetTokens);
    }
    p.block = blockName(*model, snapshot->kind);
    p.setConfig(snapshot->config);
    p.mode = heatmapModeName(document.mode()).toStdString();
    if (withHead) {
        p.layer = document.layer();
        p.head = document.head();
    }
    return p;
}

}  // namespace qkv::ui
