#pragma once
// The QApplication the drawing commands need; without a display Qt's offscreen platform draws.
// Built only with the GUI (QKV_BUILD_GUI).
#include <QApplication>
#include <memory>

namespace qkv::cli {

// A new application object, or null when one exists already.
std::unique_ptr<QApplication> startQt();

}  // namespace qkv::cli
