#pragma once
// The window's persisted settings, shared by main_window.cpp and main_window_menus.cpp.
#include <QByteArray>
#include <QString>

#include "ui/support/setting.h"

namespace qkv::ui::settings {

inline const Setting<QByteArray> kGeometry{QStringLiteral("window/geometry"), {}};
inline const Setting<QByteArray> kWindowState{QStringLiteral("window/state"), {}};
inline const Setting<int> kTab{QStringLiteral("window/tab"), 0};
inline const Setting<QString> kSentence{QStringLiteral("input/sentence"), {}};  // empty: example
// The model kSentence was typed for: token ids ("#464 3807") are that model's own.
inline const Setting<QString> kSentenceModel{QStringLiteral("input/sentence-model"), {}};
inline const Setting<QString> kConfig{QStringLiteral("input/config"), QStringLiteral("learned")};
inline const Setting<bool> kScaleOutside{QStringLiteral("input/scale-outside"), false};
inline const Setting<bool> kMaskSelf{QStringLiteral("input/mask-self"), false};
inline const Setting<QString> kMode{QStringLiteral("view/mode"), QStringLiteral("attention")};
inline const Setting<QString> kSequentialMap{QStringLiteral("view/sequential-map"),
                                             QStringLiteral("viridis")};
inline const Setting<QString> kDivergingMap{QStringLiteral("view/diverging-map"),
                                            QStringLiteral("blue-white-red")};
inline const Setting<QString> kBackend{QStringLiteral("compute/backend"), QStringLiteral("auto")};
inline const Setting<QString> kExportFolder{QStringLiteral("export/folder"), {}};
inline const Setting<bool> kExportData{QStringLiteral("export/data"), false};
inline const Setting<QString> kSessionFolder{QStringLiteral("session/folder"), {}};
inline const Setting<QString> kExperimentFolder{QStringLiteral("training/experiment-folder"), {}};

}  // namespace qkv::ui::settings
