#include "ui/training/variant_family.h"

#include <QDir>
#include <QFileInfo>

#include "ui/training/training_run.h"

namespace qkv::ui {
namespace {

bool isVariantFolder(const QDir& dir) {
    return dir.exists(QStringLiteral("config.json")) ||
           dir.exists(QStringLiteral("training_log.json"));
}

QString loggedTying(const QString& folder) {
    try {
        if (const auto run = readTrainingRun(folder)) return run->attention;
    } catch (const std::exception&) {
        // Unreadable log: the view reports it when it reads the runs.
    }
    return QStringLiteral("learned");
}

}  // namespace

const QStringList& trainingTyings() {
    static const QStringList tyings{QStringLiteral("learned"), QStringLiteral("shared-qk"),
                                    QStringLiteral("tied-kv"), QStringLiteral("single-w")};
    return tyings;
}

VariantFamily findVariantFamily(const QString& modelFolder) {
    const QFileInfo info(QDir(modelFolder).absolutePath());
    const QString name = info.fileName();
    VariantFamily family;
    for (const QString& tying : trainingTyings()) {
        const QString suffix = QLatin1Char('-') + tying;
        if (!name.endsWith(suffix) || name.size() == suffix.size()) continue;
        family.prefix = name.chopped(suffix.size());
        const QDir parent = info.dir();
        for (const QString& sibling : trainingTyings()) {
            const QString siblingName = family.prefix + QLatin1Char('-') + sibling;
            const QDir dir(parent.filePath(siblingName));
            if (isVariantFolder(dir)) family.variants.push_back({sibling, siblingName, dir.path()});
        }
        return family;
    }
    if (QDir(info.filePath()).exists(QStringLiteral("training_log.json"))) {
        family.prefix = name;
        family.variants.push_back({loggedTying(info.filePath()), name, info.filePath()});
    }
    return family;
}

}  // namespace qkv::ui
