#include "ui/window/recent_models.h"

#include <QDir>
#include <QFileInfo>

#include "ui/support/setting.h"

namespace qkv::ui {
namespace {

const Setting<QStringList> kRecentModels{QStringLiteral("models/recent"), {}};

}  // namespace

QStringList RecentModels::list() {
    QStringList existing;
    for (const QString& folder : kRecentModels.value())
        if (QFileInfo(folder).isDir() || QFileInfo(folder).isFile()) existing << folder;  // GGUF
    return existing;
}

void RecentModels::add(const QString& folder) {
    const QString path = QDir(folder).absolutePath();
    QStringList folders = kRecentModels.value();
    folders.removeAll(path);
    folders.prepend(path);
    while (folders.size() > kMaxCount) folders.removeLast();
    kRecentModels.setValue(folders);
}

void RecentModels::clear() { kRecentModels.setValue({}); }

}  // namespace qkv::ui
