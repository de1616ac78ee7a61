#pragma once
// Locating test assets: the shared reference checkpoints (../shared beside the repository, or
// $QKV_SHARED_DIR) and the project's own fixtures in tests/data.
#include <filesystem>
#include <optional>

namespace qkv::test {

// The shared assets folder, or nullopt when it is not there.
std::optional<std::filesystem::path> sharedDir();
// tests/data in the source tree.
std::filesystem::path testDataDir();

}  // namespace qkv::test

// Skips the current test, with a message saying how to provide the assets, when ../shared is
// absent; otherwise binds `var` to the shared folder's path.
#define QKV_REQUIRE_SHARED(var)                                                             \
    auto var##_opt = ::qkv::test::sharedDir();                                              \
    if (!var##_opt)                                                                         \
        GTEST_SKIP() << "shared reference assets not found (looked in $QKV_SHARED_DIR and " \
                        "../shared beside the repository); reference tests skipped";        \
    const std::filesystem::path var = *var##_opt

// As QKV_REQUIRE_SHARED, and skips too when the shared folder has no gguf/ (the GGUF files
// llama.cpp's converter made).
#define QKV_REQUIRE_SHARED_GGUF(var)                                         \
    QKV_REQUIRE_SHARED(var);                                                 \
    if (!std::filesystem::is_directory(var / "gguf"))                        \
    GTEST_SKIP() << "no GGUF reference files in " << (var / "gguf").string() \
                 << "; GGUF reference tests skipped"
