#include "tests/support/shared_assets.h"

#include <cstdlib>

namespace qkv::test {

std::optional<std::filesystem::path> sharedDir() {
    std::filesystem::path dir = QKV_DEFAULT_SHARED_DIR;
    if (const char* env = std::getenv("QKV_SHARED_DIR"); env && *env) dir = env;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir / "models", ec)) return std::nullopt;
    return std::filesystem::canonical(dir, ec);
}

std::filesystem::path testDataDir() { return QKV_TEST_DATA_DIR; }

}  // namespace qkv::test
