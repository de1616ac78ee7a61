#include "app/cli/terminal_progress.h"

#include <unistd.h>

#include <cstdio>

namespace qkv::cli {

Progress terminalProgress(const std::string& what) {
    if (!isatty(STDERR_FILENO)) return {};
    return [what](int done, int total) {
        std::fprintf(stderr, "\r%s: layer %d of %d", what.c_str(), done, total);
        if (done == total) std::fprintf(stderr, "\r\033[K");  // the line goes once it is done
        std::fflush(stderr);
    };
}

}  // namespace qkv::cli
