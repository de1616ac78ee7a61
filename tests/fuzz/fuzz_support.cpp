#include "tests/fuzz/fuzz_support.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/tokenize/utf8.h"
#include "tests/fuzz/fuzz_target.h"

namespace qkv::fuzz {
namespace {

class ScratchFolder {
  public:
    ScratchFolder() {
        std::error_code ec;
        std::filesystem::path base = "/dev/shm";
        if (!std::filesystem::is_directory(base, ec)) base = std::filesystem::temp_directory_path();
        m_path = base / ("qkv-fuzz-" + std::to_string(::getpid()));
        std::filesystem::remove_all(m_path, ec);
        std::filesystem::create_directories(m_path);
    }
    ~ScratchFolder() {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    const std::filesystem::path& path() const { return m_path; }

  private:
    std::filesystem::path m_path;
};

bool validUtf8(std::string_view text) {
    try {
        utf8::validate(text, "text");
        return true;
    } catch (const Error&) {
        return false;
    }
}

bool onCharacterBoundary(std::string_view text, std::size_t pos) {
    return pos == text.size() || !utf8::isContinuation(static_cast<unsigned char>(text[pos]));
}

}  // namespace

std::map<std::string, TargetFunction>& registry() {
    static std::map<std::string, TargetFunction> targets;
    return targets;
}

const std::filesystem::path& scratchDir() {
    static const ScratchFolder folder;
    return folder.path();
}

std::filesystem::path writeScratch(const std::filesystem::path& name, std::string_view content) {
    const std::filesystem::path path = scratchDir() / name;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) std::abort();
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n <= 0) std::abort();
        written += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return path;
}

std::filesystem::path assetPath(const std::filesystem::path& sharedRelative,
                                const std::filesystem::path& dataRelative) {
    std::filesystem::path shared = QKV_DEFAULT_SHARED_DIR;
    if (const char* env = std::getenv("QKV_SHARED_DIR"); env && *env) shared = env;
    std::error_code ec;
    if (std::filesystem::exists(shared / sharedRelative, ec)) return shared / sharedRelative;
    return testDataPath(dataRelative);
}

std::filesystem::path testDataPath(const std::filesystem::path& dataRelative) {
    return std::filesystem::path(QKV_TEST_DATA_DIR) / dataRelative;
}

void fixtureFailed(const char* message) {
    std::fprintf(stderr, "fuzz fixture could not be loaded: %s\n", message);
    std::abort();
}

void checkTokens(const Tokenizer& tokenizer, std::string_view text,
                 const std::vector<Token>& tokens) {
    for (const Token& token : tokens) {
        FUZZ_CHECK(token.id >= 0 && token.id < tokenizer.vocabSize());
        FUZZ_CHECK(token.piece == tokenizer.piece(token.id));
        FUZZ_CHECK(token.begin <= token.end && token.end <= text.size());
        FUZZ_CHECK(onCharacterBoundary(text, token.begin));
        FUZZ_CHECK(onCharacterBoundary(text, token.end));
        FUZZ_CHECK(!token.special || token.begin == token.end);
        FUZZ_CHECK(validUtf8(tokenizer.displayText(token.id)));
    }
}

void encodeAndCheck(const Tokenizer& tokenizer, std::string_view text) {
    const bool valid = validUtf8(text);
    try {
        checkTokens(tokenizer, text, tokenizer.encode(text));
        FUZZ_CHECK(valid);
    } catch (const Error&) {
        // Refusing invalid UTF-8 is the contract; valid text may still be unrepresentable by a
        // tiny vocabulary, which is also a qkv::Error.
    }
}

}  // namespace qkv::fuzz
