#include "core/util/memory.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/util/error.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace qkv {
namespace {

constexpr std::uint64_t kNoBudget = ~std::uint64_t{0};
std::atomic<std::uint64_t> g_budget{kNoBudget};

// The first number on the line of `file` that starts with `key` (e.g. "MemAvailable:").
std::optional<std::uint64_t> numberAfter(const std::string& file, std::string_view key) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.starts_with(key)) continue;
        std::istringstream rest(line.substr(key.size()));
        std::uint64_t value = 0;
        if (rest >> value) return value;
    }
    return std::nullopt;
}

// A file holding one number; nullopt for "max", a missing file or anything else.
std::optional<std::uint64_t> numberIn(const std::string& file) {
    std::ifstream in(file);
    std::uint64_t value = 0;
    if (in >> value) return value;
    return std::nullopt;
}

// Limit minus usage of the memory cgroup this process is in, counting inactive page cache as
// free (the kernel reclaims it before it kills), as `docker stats` does.
std::optional<std::uint64_t> cgroupAvailable() {
    std::ifstream self("/proc/self/cgroup");
    std::string line;
    while (std::getline(self, line)) {
        // "0::/path" (v2) or "4:memory:/path" (v1; the controller list may name several).
        const auto first = line.find(':');
        const auto second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        const std::string controllers = "," + line.substr(first + 1, second - first - 1) + ",";
        const std::string path = line.substr(second + 1);
        std::optional<std::uint64_t> limit, usage, inactive;
        if (controllers == ",,") {
            const std::string dir = "/sys/fs/cgroup" + path;
            limit = numberIn(dir + "/memory.max");
            usage = numberIn(dir + "/memory.current");
            inactive = numberAfter(dir + "/memory.stat", "inactive_file ");
        } else if (controllers.find(",memory,") != std::string::npos) {
            const std::string dir = "/sys/fs/cgroup/memory" + path;
            limit = numberIn(dir + "/memory.limit_in_bytes");
            usage = numberIn(dir + "/memory.usage_in_bytes");
            inactive = numberAfter(dir + "/memory.stat", "total_inactive_file ");
        } else {
            continue;
        }
        // v1 reports "no limit" as a huge page-rounded number.
        if (!limit || !usage || *limit >= (std::uint64_t{1} << 60)) continue;
        const std::uint64_t used = *usage - std::min(*usage, inactive.value_or(0));
        return *limit > used ? *limit - used : 0;
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> availableMemory() {
    std::optional<std::uint64_t> available;
    if (auto kb = numberAfter("/proc/meminfo", "MemAvailable:")) available = *kb * 1024;
    if (auto cgroup = cgroupAvailable()) available = std::min(available.value_or(*cgroup), *cgroup);
    if (const std::uint64_t budget = g_budget.load(); budget != kNoBudget)
        available = std::min(available.value_or(budget), budget);
    return available;
}

void setMemoryBudget(std::optional<std::uint64_t> bytes) { g_budget = bytes.value_or(kNoBudget); }

std::string formatBytes(std::uint64_t bytes) {
    if (bytes < 1000) return std::to_string(bytes) + " bytes";
    const char* units[] = {"kB", "MB", "GB", "TB", "PB", "EB"};
    double value = static_cast<double>(bytes) / 1000.0;
    int unit = 0;
    while (value >= 999.95 && unit + 1 < static_cast<int>(std::size(units))) {
        value /= 1000.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    return text;
}

void requireMemory(std::uint64_t bytes, std::string_view what, std::string_view how,
                   std::string_view advice) {
    const std::optional<std::uint64_t> available = availableMemory();
    if (!available || bytes <= *available) return;
    std::string message = std::string(what) + " needs " + formatBytes(bytes);
    if (!how.empty()) message += " " + std::string(how);
    message += "; " + formatBytes(*available) + " of memory is available";
    if (!advice.empty()) message += " (" + std::string(advice) + ")";
    throw Error(message);
}

void keepFreedMemoryForReuse() {
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

}  // namespace qkv
