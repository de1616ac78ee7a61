#pragma once
// SHA-256 of a file or of bytes, as the lowercase hex digest the Hub uses for an LFS file's ETag.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace qkv {

// A digest fed piece by piece.
class Sha256 {
  public:
    Sha256();
    ~Sha256();
    void update(const void* bytes, std::size_t size);
    void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
    std::string hex();  // once, at the end

  private:
    struct Context;
    std::unique_ptr<Context> m_context;
};

// Throws qkv::Error when the file cannot be read.
std::string fileSha256(const std::filesystem::path& path);
// SHA-256 of bytes in memory, as lowercase hex.
std::string sha256Hex(std::string_view bytes);

}  // namespace qkv
