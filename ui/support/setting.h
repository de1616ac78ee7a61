#pragma once
// A typed, persistent setting: its key and its default live next to the code that uses it.
//   const Setting<QString> kBackend{"compute/backend", "auto"};
//   kBackend.value(); kBackend.setValue("cpu");
#include <QSettings>
#include <QString>
#include <QVariant>

namespace qkv::ui {

template <typename T>
class Setting {
  public:
    Setting(QString key, T fallback) : m_key(std::move(key)), m_default(std::move(fallback)) {}

    T value() const {
        const QVariant v = QSettings().value(m_key);
        return v.isValid() && v.canConvert<T>() ? v.value<T>() : m_default;
    }
    void setValue(const T& value) const { QSettings().setValue(m_key, QVariant::fromValue(value)); }
    const QString& key() const { return m_key; }
    const T& defaultValue() const { return m_default; }

  private:
    QString m_key;
    T m_default;
};

}  // namespace qkv::ui
