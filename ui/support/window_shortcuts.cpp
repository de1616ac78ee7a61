#include "ui/support/window_shortcuts.h"

#include <QAction>
#include <QKeyEvent>
#include <QKeySequence>
#include <QWidget>

namespace qkv::ui {
namespace {

// What a text field keeps for itself.
bool editsText(const QKeyEvent& key) {
    for (QKeySequence::StandardKey k :
         {QKeySequence::Copy, QKeySequence::Cut, QKeySequence::Paste, QKeySequence::Undo,
          QKeySequence::Redo, QKeySequence::SelectAll})
        if (key.matches(k)) return true;
    const Qt::KeyboardModifiers mods = key.modifiers() & ~(Qt::ShiftModifier | Qt::KeypadModifier);
    const bool paging = key.key() == Qt::Key_PageUp || key.key() == Qt::Key_PageDown ||
                        key.key() == Qt::Key_Escape || key.key() == Qt::Key_F5;
    return mods == Qt::NoModifier && !paging;
}

}  // namespace

WindowShortcuts::WindowShortcuts(QWidget* window, QObject* parent)
    : QObject(parent), m_window(window) {}

void WindowShortcuts::passOn(QWidget* field, QWidget* window) {
    field->installEventFilter(new WindowShortcuts(window, field));
}

bool WindowShortcuts::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::ShortcutOverride) return QObject::eventFilter(watched, event);
    const auto* key = static_cast<QKeyEvent*>(event);
    if (editsText(*key)) return false;
    const QKeySequence pressed(key->keyCombination());
    for (const QAction* action : m_window->findChildren<QAction*>())
        for (const QKeySequence& shortcut : action->shortcuts())
            if (action->isEnabled() && shortcut == pressed) {
                event->ignore();  // not the field's: the shortcut goes to the window
                return true;
            }
    return false;
}

}  // namespace qkv::ui
