#pragma once
// SHA-256 of a file, as the lowercase hex digest the Hub uses for an LFS file's ETag.
#include <filesystem>
#include <string>

namespace qkv {

// Throws qkv::Error when the file cannot be read.
std::string fileSha256(const std::filesystem::path& path);

}  // namespace qkv
