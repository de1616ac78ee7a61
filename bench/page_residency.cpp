#include "bench/page_residency.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#include "core/io/safetensors.h"
#include "core/util/error.h"

namespace qkv::bench {

std::vector<std::filesystem::path> checkpointFiles(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (entry.path().extension() == ".safetensors") files.push_back(entry.path());
    return files;
}

std::uint64_t residentBytes(const std::uint8_t* begin, std::size_t size) {
    if (size == 0) return 0;
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto first = reinterpret_cast<std::uintptr_t>(begin) / page * page;
    const auto end = reinterpret_cast<std::uintptr_t>(begin) + size;
    const std::size_t pages = (end - first + page - 1) / page;
    std::vector<unsigned char> in(pages);
    if (mincore(reinterpret_cast<void*>(first), pages * page, in.data()) != 0)
        throw Error("mincore failed on a mapped checkpoint");
    std::uint64_t count = 0;
    for (unsigned char p : in) count += p & 1;
    return count * page;
}

void evictFromPageCache(const std::filesystem::path& file) {
    const int fd = ::open(file.c_str(), O_RDONLY);
    if (fd < 0) return;
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
}

void evictCheckpoint(const std::filesystem::path& dir) {
    for (const auto& file : checkpointFiles(dir)) evictFromPageCache(file);
}

std::map<std::string, std::uint64_t> residentTensorBytes(const std::filesystem::path& dir) {
    std::map<std::string, std::uint64_t> bytes;
    for (const auto& path : checkpointFiles(dir)) {
        const SafetensorsFile file(path);  // maps it and reads the header only
        for (const auto& [name, tensor] : file.tensors())
            bytes[name] = residentBytes(tensor.data, tensor.byteSize);
    }
    return bytes;
}

}  // namespace qkv::bench
