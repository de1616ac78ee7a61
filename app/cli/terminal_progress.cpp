#include "app/cli/terminal_progress.h"

#include <unistd.h>

#include <cstdio>

namespace qkv::cli {

Progress terminalProgress(const std::string& what, const std::string& unit) {
    if (!isatty(STDERR_FILENO)) return {};
    return [what, unit](int done, int total) {
        std::fprintf(stderr, "\r%s: %s %d of %d", what.c_str(), unit.c_str(), done, total);
        if (done == total) std::fprintf(stderr, "\r\033[K");  // the line goes once it is done
        std::fflush(stderr);
    };
}

DownloadListener terminalDownloadProgress(const std::string& id) {
    const bool terminal = isatty(STDERR_FILENO);
    return [id, terminal, started = false](const DownloadProgress& p) mutable {
        using Stage = DownloadProgress::Stage;
        if (!started && p.stage == Stage::Downloading) {
            std::fprintf(stderr, "%s: downloading %.1f MB into the Hugging Face cache\n",
                         id.c_str(), static_cast<double>(p.total) / 1e6);
            started = true;
        }
        if (!terminal || p.stage == Stage::Listing) return true;
        if (p.stage == Stage::Done) {
            std::fprintf(stderr, "\r\033[K");
        } else {
            const double percent = p.total ? 100.0 * static_cast<double>(p.done) / p.total : 100;
            std::fprintf(stderr, "\r\033[K%s: file %d of %d, %s %s %.1f of %.1f MB, %.0f%% of all",
                         id.c_str(), p.fileIndex, p.fileCount, p.file.c_str(),
                         p.stage == Stage::Verifying ? "checking" : "",
                         static_cast<double>(p.fileDone) / 1e6,
                         static_cast<double>(p.fileBytes) / 1e6, percent);
        }
        std::fflush(stderr);
        return true;
    };
}

}  // namespace qkv::cli
