#include "core/util/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>

#include "core/util/error.h"

namespace qkv {
namespace {

std::filesystem::path temporaryBeside(const std::filesystem::path& target) {
    std::random_device random;
    char suffix[24];
    std::snprintf(suffix, sizeof suffix, ".tmp-%08x", random());
    return target.parent_path() / ("." + target.filename().string() + suffix);
}

Error writeFailed(const std::filesystem::path& target, int err) {
    return Error(target.string() +
                 ": write failed: " + (err ? std::strerror(err) : "stream error (disk full?)"));
}

void syncFile(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(path.string() + ": " + std::strerror(errno));
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0) throw Error(path.string() + ": cannot flush to disk: " + std::strerror(err));
}

// Makes the rename itself durable; best effort (some file systems refuse to sync a folder).
void syncFolder(const std::filesystem::path& folder) {
    const char* name = folder.empty() ? "." : folder.c_str();
    const int fd = ::open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    ::fsync(fd);
    ::close(fd);
}

}  // namespace

void writeFileAtomically(const std::filesystem::path& target,
                         const std::function<void(std::ostream&)>& write) {
    const std::filesystem::path temporary = temporaryBeside(target);
    try {
        {
            std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
            if (!out)
                throw Error(target.string() + ": cannot write in " +
                            (target.has_parent_path() ? target.parent_path().string() : ".") +
                            ": " + std::strerror(errno));
            write(out);
            out.flush();
            if (!out) throw writeFailed(target, errno);
            out.close();
            if (out.fail()) throw writeFailed(target, errno);
        }
        syncFile(temporary);
        // A replaced file keeps its permissions (a settings file readable only by its owner).
        std::error_code ec;
        const auto previous = std::filesystem::status(target, ec);
        if (!ec && std::filesystem::is_regular_file(previous))
            std::filesystem::permissions(temporary, previous.permissions(), ec);
        std::filesystem::rename(temporary, target, ec);
        if (ec) throw Error(target.string() + ": cannot replace: " + ec.message());
    } catch (...) {
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
        throw;
    }
    syncFolder(target.parent_path());
}

void writeFileAtomically(const std::filesystem::path& target, std::string_view content) {
    writeFileAtomically(target, [&](std::ostream& out) {
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
    });
}

}  // namespace qkv
