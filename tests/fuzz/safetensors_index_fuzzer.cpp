// A sharded checkpoint's model.safetensors.index.json, parsed from memory; an index that parses
// is then resolved from disk against two small valid shards.
#include <nlohmann/json.hpp>

#include "core/io/safetensors.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/fuzz_target.h"

using namespace qkv;

namespace {

std::string shard(const nlohmann::json& header, std::size_t dataBytes) {
    const std::string text = header.dump();
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((text.size() >> (8 * i)) & 0xFF);
    return bytes + text + std::string(dataBytes, '\x3c');
}

// The folder holding both shards; the index is rewritten per input.
std::filesystem::path shardFolder() {
    static const std::filesystem::path folder = [] {
        const std::filesystem::path dir = "sharded";
        std::filesystem::create_directories(fuzz::scratchDir() / dir);
        using nlohmann::json;
        fuzz::writeScratch(
            dir / "model-00001-of-00002.safetensors",
            shard({{"a", {{"dtype", "F32"}, {"shape", {2}}, {"data_offsets", {0, 8}}}},
                   {"b", {{"dtype", "F16"}, {"shape", {3}}, {"data_offsets", {8, 14}}}}},
                  14));
        fuzz::writeScratch(
            dir / "model-00002-of-00002.safetensors",
            shard({{"__metadata__", {{"format", "pt"}}},
                   {"c", {{"dtype", "BF16"}, {"shape", {1, 2}}, {"data_offsets", {0, 4}}}},
                   {"d", {{"dtype", "I64"}, {"shape", {1}}, {"data_offsets", {4, 12}}}}},
                  12));
        return fuzz::scratchDir() / dir;
    }();
    return folder;
}

}  // namespace

QKV_FUZZ_TARGET(safetensors_index) {
    const auto weightMap = parseShardIndex(input, "model.safetensors.index.json");
    for (const auto& [tensor, shard] : weightMap)
        FUZZ_CHECK(std::filesystem::path(shard).filename() == shard && shard != ".." &&
                   shard.find('\0') == std::string::npos);

    const std::filesystem::path folder = shardFolder();
    fuzz::writeScratch(folder.filename() / "model.safetensors.index.json", input);
    auto store = TensorStore::openFolder(folder);
    for (const std::string& name : store->names()) {
        const TensorInfo* tensor = store->find(name);
        FUZZ_CHECK(tensor != nullptr && tensor->name == name);
        try {
            store->floats(*tensor);
        } catch (const Error&) {
        }
    }
}
