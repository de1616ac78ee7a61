#pragma once
// Read-only memory map of a whole file. Pages are loaded lazily by the OS, so opening a large
// checkpoint costs a few system calls; the map stays valid for the object's lifetime.
#include <cstddef>
#include <cstdint>
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

private:
    std::filesystem::path m_path;
    const std::uint8_t* m_data = nullptr;
    std::size_t m_size = 0;
};

}  // namespace qkv
