#pragma once
// Where the app finds its bundled example models (resources/models/<name>-learned, -shared-qk,
// -tied-kv, -single-w): $QKV_MODELS_DIR, then where `cmake --install` puts them relative to the
// executable (<prefix>/bin/../share/qkvlab/models), then models/ beside it, then the source
// tree's resources/models (running from a build tree).
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace qkv::ui {

struct ExampleModel {
    QString name;    // the folder's name
    QString folder;  // absolute path
};

QStringList modelSearchFolders();
// Model folders (those with a config.json) in the first search folder that has any.
std::vector<ExampleModel> exampleModels();
// The "*-learned" example, opened at first launch.
std::optional<QString> defaultModel();

}  // namespace qkv::ui
