#pragma once
// How much memory the process may still allocate, so that work whose size is known up front
// (float32 copies of F16/BF16 weights, a forward's attention capture) is refused with a clear
// qkv::Error instead of ending in the kernel's out-of-memory kill.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace qkv {

// /proc/meminfo's MemAvailable, lowered to what the process's cgroup (v1 or v2) still allows and
// to the budget set below; nullopt where none of these is known (then nothing is refused).
std::optional<std::uint64_t> availableMemory();

// Caps availableMemory() for this process (nullopt: no cap). Front ends may expose it; tests use
// it to exercise the refusals.
void setMemoryBudget(std::optional<std::uint64_t> bytes);

// Front ends call this once at start-up: the allocator keeps freed memory (up to 256 MB at the
// top of the heap) and serves blocks below 32 MB from the heap instead of fresh mappings. Every
// forward allocates and frees the same activations and capture matrices; handing them back to
// the kernel made the next forward fault every page in again (about a tenth of a 256-token
// forward of GPT-2 small). No effect outside glibc.
void keepFreedMemoryForReuse();

// "512 bytes", "1.5 MB", "14.2 GB" (decimal units).
std::string formatBytes(std::uint64_t bytes);

// Throws qkv::Error "<what> needs <bytes> <how>; <available> of memory is available<advice>"
// when `bytes` exceed availableMemory(). `how` and `advice` may be empty.
void requireMemory(std::uint64_t bytes, std::string_view what, std::string_view how = {},
                   std::string_view advice = {});

}  // namespace qkv
