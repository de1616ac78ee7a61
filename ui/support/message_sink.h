#pragma once
// Where the app's dialogs go. The window reports errors through a sink rather than calling
// QMessageBox directly, so tests inject a recording sink and never block on a modal dialog.
#include <QString>
#include <QStringList>

class QWidget;

namespace qkv::ui {

class MessageSink {
  public:
    virtual ~MessageSink() = default;
    virtual void error(const QString& title, const QString& message) = 0;
    virtual void information(const QString& title, const QString& message) = 0;
};

// Modal message boxes over a parent window.
class DialogMessageSink : public MessageSink {
  public:
    explicit DialogMessageSink(QWidget* parent) : m_parent(parent) {}
    void error(const QString& title, const QString& message) override;
    void information(const QString& title, const QString& message) override;

  private:
    QWidget* m_parent;
};

// Keeps messages for inspection (tests, headless runs).
class RecordingMessageSink : public MessageSink {
  public:
    void error(const QString& title, const QString& message) override {
        errors.append(title + ": " + message);
    }
    void information(const QString& title, const QString& message) override {
        informations.append(title + ": " + message);
    }
    QStringList errors;
    QStringList informations;
};

}  // namespace qkv::ui
