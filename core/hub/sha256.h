#pragma once
// SHA-256 of a file or of bytes, as the lowercase hex digest the Hub uses for an LFS file's ETag.
#include <filesystem>
#include <string>
#include <string_view>

namespace qkv {

// Throws qkv::Error when the file cannot be read.
std::string fileSha256(const std::filesystem::path& path);
// SHA-256 of bytes in memory, as lowercase hex.
std::string sha256Hex(std::string_view bytes);

}  // namespace qkv
