#include "ui/support/message_sink.h"

#include <QMessageBox>

namespace qkv::ui {

void DialogMessageSink::error(const QString& title, const QString& message) {
    QMessageBox::critical(m_parent, title, message);
}

void DialogMessageSink::information(const QString& title, const QString& message) {
    QMessageBox::information(m_parent, title, message);
}

}  // namespace qkv::ui
