#pragma once
// What the fuzz targets share: a private scratch folder (on tmpfs where there is one) for the
// files under test, the tokenizer files the encode targets load once, and the invariants every
// tokenizer's output must satisfy.
#include <filesystem>
#include <string_view>
#include <vector>

#include "core/tokenize/tokenizer.h"

namespace qkv::fuzz {

[[noreturn]] void fixtureFailed(const char* message);

// A folder private to this process, removed at exit.
const std::filesystem::path& scratchDir();
// Writes `content` to scratchDir()/name (replacing it) and returns the path.
std::filesystem::path writeScratch(const std::filesystem::path& name, std::string_view content);

// `sharedRelative` under the shared assets ($QKV_SHARED_DIR, else ../shared beside the
// repository) when that exists, else `dataRelative` under the repository's tests/data.
std::filesystem::path assetPath(const std::filesystem::path& sharedRelative,
                                const std::filesystem::path& dataRelative);
std::filesystem::path testDataPath(const std::filesystem::path& dataRelative);

// Builds a fixture the target needs (a tokenizer loaded once); a failure there is a broken
// setup, not a finding, so it stops the run instead of turning every input into an error.
template <typename Make>
auto loadFixture(Make make) -> decltype(make()) {
    try {
        return make();
    } catch (const std::exception& e) {
        fixtureFailed(e.what());
    }
}

// Aborts when the tokens break Tokenizer's documented contract for `text`: ids inside the
// vocabulary, pieces as piece(id) gives them, spans inside the text on character boundaries,
// special tokens spanning nothing, display text valid UTF-8.
void checkTokens(const Tokenizer& tokenizer, std::string_view text,
                 const std::vector<Token>& tokens);

// Encodes `text` and checks the result; invalid UTF-8 must be refused with qkv::Error.
void encodeAndCheck(const Tokenizer& tokenizer, std::string_view text);

}  // namespace qkv::fuzz
