#pragma once
// Read-only memory map of a whole file. Pages are loaded lazily by the OS, so opening a large
// checkpoint costs a few system calls; the map stays valid for the object's lifetime.
//
// A file truncated while mapped makes reads past its new end raise SIGBUS, which no library
// should catch for its host. So the descriptor stays open and checkUnchanged() compares the
// file's identity (device, inode, size, modification time) with what was mapped; callers run it
// before reading mapped bytes after a pause (each forward pass does). A file replaced by rename
// (how editors, downloads and our own writers save) keeps the old inode alive and mapped, so it
// cannot fault, but is reported too: the data no longer matches the path.
// Residual race: a truncation between the check and the read still faults. Closing that would
// take a SIGBUS handler or copying the weights; the check turns the realistic case (a download
// or training run rewriting the file while the app sits open) into a clear error.
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <filesystem>

namespace qkv {

class MappedFile {
  public:
    explicit MappedFile(const std::filesystem::path& path);  // throws qkv::Error
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::uint8_t* data() const { return m_data; }
    std::size_t size() const { return m_size; }
    const std::filesystem::path& path() const { return m_path; }

    // Throws qkv::Error "<path>: changed on disk since it was opened (...); reopen it" when the
    // mapped file was truncated, rewritten, replaced or deleted.
    void checkUnchanged() const;

  private:
    std::filesystem::path m_path;
    int m_fd = -1;
    const std::uint8_t* m_data = nullptr;
    std::size_t m_size = 0;
    std::uint64_t m_device = 0;
    std::uint64_t m_inode = 0;
    timespec m_modified{};
};

}  // namespace qkv
