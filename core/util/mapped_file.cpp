#include "core/util/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/util/error.h"

namespace qkv {
namespace {

bool sameTime(const timespec& a, const timespec& b) {
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

}  // namespace

MappedFile::MappedFile(const std::filesystem::path& path) : m_path(path) {
    // O_NONBLOCK: a FIFO in a model folder must give an error, not block the open forever.
    m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (m_fd < 0) throw Error(path.string() + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(m_fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(m_fd);
        throw Error(path.string() + ": not a regular file");
    }
    m_size = static_cast<std::size_t>(st.st_size);
    m_device = st.st_dev;
    m_inode = st.st_ino;
    m_modified = st.st_mtim;
    if (m_size > 0) {
        void* p = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, m_fd, 0);
        if (p == MAP_FAILED) {
            const int err = errno;
            ::close(m_fd);
            throw Error(path.string() + ": cannot map: " + std::strerror(err));
        }
        m_data = static_cast<const std::uint8_t*>(p);
    }
}

MappedFile::~MappedFile() {
    if (m_data) ::munmap(const_cast<std::uint8_t*>(m_data), m_size);
    ::close(m_fd);
}

void MappedFile::checkUnchanged() const {
    const std::string changed = m_path.string() + ": changed on disk since it was opened (";
    struct stat st {};
    if (::fstat(m_fd, &st) != 0)
        throw Error(m_path.string() + ": cannot check the open file: " + std::strerror(errno));
    if (static_cast<std::uint64_t>(st.st_size) != m_size)
        throw Error(changed + "it was " + std::to_string(m_size) + " bytes, now " +
                    std::to_string(st.st_size) + "); reopen it");
    if (!sameTime(st.st_mtim, m_modified)) throw Error(changed + "rewritten in place); reopen it");
    struct stat now {};
    if (::stat(m_path.c_str(), &now) != 0)
        throw Error(changed + "no longer there: " + std::strerror(errno) + "); reopen it");
    if (now.st_dev != m_device || now.st_ino != m_inode)
        throw Error(changed + "replaced by another file); reopen it");
}

}  // namespace qkv
