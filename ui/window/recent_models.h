#pragma once
// The model folders opened most recently (persisted), newest first.
#include <QStringList>

namespace qkv::ui {

class RecentModels {
  public:
    static constexpr int kMaxCount = 8;
    static QStringList list();  // only folders that still exist
    static void add(const QString& folder);
    static void clear();
};

}  // namespace qkv::ui
