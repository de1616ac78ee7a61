#pragma once
// Which parts of a checkpoint's files a stage read: its pages are dropped from the page cache
// before the stage, and the pages of each tensor found there after it are counted (mincore). A
// hole reads as zeros through the page cache like data, so this also counts what a sparse file
// gave, which storage counters (pgpgin) do not see.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace qkv::bench {

// Every .safetensors file of the checkpoint folder `dir`.
std::vector<std::filesystem::path> checkpointFiles(const std::filesystem::path& dir);

// Drops the file's pages from the page cache, so that what a stage needs is read again.
void evictFromPageCache(const std::filesystem::path& file);

// Every .safetensors file of the checkpoint folder `dir`, out of the page cache.
void evictCheckpoint(const std::filesystem::path& dir);

// The bytes of the pages of [begin, begin + size) that are in the page cache (whole pages).
std::uint64_t residentBytes(const std::uint8_t* begin, std::size_t size);

// For each tensor of the folder's .safetensors files, the bytes of its pages in the page cache.
std::map<std::string, std::uint64_t> residentTensorBytes(const std::filesystem::path& dir);

}  // namespace qkv::bench
