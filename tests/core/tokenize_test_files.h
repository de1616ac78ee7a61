#pragma once
// Helpers for the tokenizer tests: a scratch folder for small (often deliberately broken)
// tokenizer files, and a check that token spans point at the right text.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/tokenize/tokenizer.h"

namespace qkv::test {

// A fresh folder under the system temp directory, removed with everything in it on destruction.
class ScratchDir {
  public:
    ScratchDir() {
        static std::atomic<int> counter{0};
        m_path = std::filesystem::temp_directory_path() /
                 ("qkv-tokenize-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        std::filesystem::remove_all(m_path);
        std::filesystem::create_directories(m_path);
    }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    const std::filesystem::path& path() const { return m_path; }
    // Writes `content` byte for byte to `name` inside the folder; returns the folder.
    const std::filesystem::path& write(const std::string& name, std::string_view content) const {
        std::ofstream out(m_path / name, std::ios::binary | std::ios::trunc);
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        return m_path;
    }

  private:
    std::filesystem::path m_path;
};

inline std::vector<int> idsOf(const std::vector<Token>& tokens) {
    std::vector<int> ids;
    for (const Token& t : tokens) ids.push_back(t.id);
    return ids;
}

inline std::vector<std::string> piecesOf(const std::vector<Token>& tokens) {
    std::vector<std::string> pieces;
    for (const Token& t : tokens) pieces.push_back(t.piece);
    return pieces;
}

// The text each token covers in `text` (empty for specials).
inline std::vector<std::string> surfacesOf(std::string_view text,
                                           const std::vector<Token>& tokens) {
    std::vector<std::string> out;
    for (const Token& t : tokens) {
        EXPECT_LE(t.begin, t.end);
        EXPECT_LE(t.end, text.size());
        out.emplace_back(text.substr(t.begin, t.end - t.begin));
    }
    return out;
}

}  // namespace qkv::test
