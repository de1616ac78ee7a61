#pragma once
// Lets a text field pass the window's shortcuts on. A QLineEdit claims some key sequences for
// editing (Ctrl+E moves to the line's end under X11's bindings, Ctrl+K deletes to it, …), so
// with the sentence box focused — at start-up and after typing — Export (Ctrl+E) did nothing.
// The field keeps what text editing needs: copy, cut, paste, undo, redo, select all, and the keys
// without Ctrl or Alt that move the caret or edit; every other shortcut of the window's actions
// reaches the window.
#include <QObject>

class QWidget;

namespace qkv::ui {

class WindowShortcuts : public QObject {
  public:
    // Filters `field`'s shortcut overrides against the actions of `window` (and its menus).
    static void passOn(QWidget* field, QWidget* window);

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    WindowShortcuts(QWidget* window, QObject* parent);
    QWidget* m_window;
};

}  // namespace qkv::ui
