#pragma once
// The provenance of what a tab of the app shows, from the document's model and latest result.
#include <QString>

#include "ui/export/figure_provenance.h"

namespace qkv::ui {

class LabDocument;

// The model, the sentence and its ids, the configuration, the mode and colour maps of the
// document's latest result; with `withHead` also its layer and head. `view` names the tab
// ("head", "compare", ...). Empty (but for the view) while no model is open.
FigureProvenance documentProvenance(const LabDocument& document, const QString& view,
                                    bool withHead);

}  // namespace qkv::ui
