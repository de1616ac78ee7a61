#pragma once
// Progress of long work on stderr, rewritten in place ("analyze: layer 12 of 32"), when stderr is
// a terminal; nothing when it is a file or a pipe, so redirected output stays clean.
#include <string>

#include "core/util/progress.h"

namespace qkv::cli {

Progress terminalProgress(const std::string& what);

}  // namespace qkv::cli
