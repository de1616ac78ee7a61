#pragma once
// A GGUF model's metadata read under its architecture's prefix ("llama.block_count"), with errors
// that name the file and the key.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "core/io/gguf.h"
#include "core/util/error.h"

namespace qkv {

// The file's tensors by name (all shards of a split model).
using GgufTensors = std::map<std::string, const GgufTensor*>;

struct GgufModelReader {
    const GgufFile& file;
    std::string arch;

    [[noreturn]] void fail(const std::string& message) const {
        throw Error(file.path().string() + ": " + message);
    }
    std::optional<std::int64_t> integer(const std::string& key) const {
        return file.integer(arch + "." + key);
    }
    std::optional<double> number(const std::string& key) const {
        return file.number(arch + "." + key);
    }
    std::int64_t required(const std::string& key) const {
        const auto value = integer(key);
        if (!value) fail("GGUF metadata " + arch + "." + key + " is missing");
        return *value;
    }
};

}  // namespace qkv
