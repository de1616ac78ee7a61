#include "ui/support/model_locator.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace qkv::ui {

QStringList modelSearchFolders() {
    QStringList folders;
    if (const QString env = qEnvironmentVariable("QKV_MODELS_DIR"); !env.isEmpty()) folders << env;
    const QString exe = QCoreApplication::applicationDirPath();
    folders << QDir::cleanPath(QDir(exe).filePath(QStringLiteral(QKV_INSTALLED_MODELS_DIR)))
            << QDir(exe).filePath(QStringLiteral("models"));
#ifdef QKV_SOURCE_MODELS_DIR
    folders << QStringLiteral(QKV_SOURCE_MODELS_DIR);
#endif
    return folders;
}

std::vector<ExampleModel> exampleModels() {
    for (const QString& folder : modelSearchFolders()) {
        std::vector<ExampleModel> models;
        const QDir dir(folder);
        for (const QFileInfo& entry :
             dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            if (QFileInfo::exists(QDir(entry.absoluteFilePath()).filePath("config.json")))
                models.push_back({entry.fileName(), entry.absoluteFilePath()});
        if (!models.empty()) return models;
    }
    return {};
}

std::optional<QString> defaultModel() {
    for (const ExampleModel& model : exampleModels())
        if (model.name.endsWith(QStringLiteral("-learned"))) return model.folder;
    return std::nullopt;
}

}  // namespace qkv::ui
