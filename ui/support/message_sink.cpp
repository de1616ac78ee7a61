#include "ui/support/message_sink.h"

#include <QMessageBox>

namespace qkv::ui {

void DialogMessageSink::error(const QString& title, const QString& message) {
    QMessageBox::critical(m_parent, title, message);
}

void DialogMessageSink::information(const QString& title, const QString& message) {
    QMessageBox::information(m_parent, title, message);
}

UnsavedChoice DialogMessageSink::askToSave(const QString& title, const QString& message) {
    const auto answer = QMessageBox::warning(
        m_parent, title, message, QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel,
        QMessageBox::Save);
    return answer == QMessageBox::Save      ? UnsavedChoice::Save
           : answer == QMessageBox::Discard ? UnsavedChoice::Discard
                                            : UnsavedChoice::Cancel;
}

}  // namespace qkv::ui
