#pragma once
// The Python check script (core/report/python_snippet.h) for what the document shows: its model,
// the ids of the latest computation, the shown attention block, layer, head and configuration.
#include <QString>
#include <optional>

namespace qkv::ui {

class LabDocument;

// The script, or nullopt while no model is open or nothing has been computed yet.
std::optional<QString> documentPythonCheck(const LabDocument& document);
// Edit ▸ Copy as Python: puts the script on the clipboard; returns the status-bar message saying
// what was copied, or why nothing was.
QString copyPythonCheck(const LabDocument& document);

}  // namespace qkv::ui
