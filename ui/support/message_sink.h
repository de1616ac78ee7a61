#pragma once
// Where the app's dialogs go. The window reports errors through a sink rather than calling
// QMessageBox directly, so tests inject a recording sink and never block on a modal dialog.
#include <QString>
#include <QStringList>

class QWidget;

namespace qkv::ui {

// The answer to "save the changes?" before they would be lost.
enum class UnsavedChoice { Save, Discard, Cancel };

class MessageSink {
  public:
    virtual ~MessageSink() = default;
    virtual void error(const QString& title, const QString& message) = 0;
    virtual void information(const QString& title, const QString& message) = 0;
    virtual UnsavedChoice askToSave(const QString& title, const QString& message) = 0;
};

// Modal message boxes over a parent window.
class DialogMessageSink : public MessageSink {
  public:
    explicit DialogMessageSink(QWidget* parent) : m_parent(parent) {}
    void error(const QString& title, const QString& message) override;
    void information(const QString& title, const QString& message) override;
    UnsavedChoice askToSave(const QString& title, const QString& message) override;

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
    UnsavedChoice askToSave(const QString& title, const QString& message) override {
        questions.append(title + ": " + message);
        return unsavedAnswer;
    }
    QStringList errors;
    QStringList informations;
    QStringList questions;
    UnsavedChoice unsavedAnswer = UnsavedChoice::Discard;  // what askToSave answers
};

}  // namespace qkv::ui
