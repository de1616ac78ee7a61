#include "ui/export/weights_fingerprint.h"

#include <cstdint>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "core/io/gguf.h"
#include "core/io/safetensors.h"
#include "core/util/error.h"
#include "core/util/sha256.h"

namespace qkv::ui {
namespace {

std::vector<std::string> weightFiles(const std::filesystem::path& folder) {
    std::error_code ec;
    if (std::filesystem::exists(folder / "model.safetensors", ec)) return {"model.safetensors"};
    const auto indexPath = folder / "model.safetensors.index.json";
    std::ifstream index(indexPath, std::ios::binary);
    if (!index) throw Error(folder.string() + ": no model.safetensors or shard index");
    std::stringstream text;
    text << index.rdbuf();
    std::set<std::string> shards;
    for (const auto& [tensor, shard] : parseShardIndex(text.str(), indexPath)) shards.insert(shard);
    return {shards.begin(), shards.end()};
}

// A GGUF file's: the SHA-256 of everything before its data (metadata and tensor infos).
std::string ggufHeaderSha256(const std::filesystem::path& file) {
    const std::uint64_t length = GgufFile(file).table().dataStart;
    std::ifstream in(file, std::ios::binary);
    std::string bytes(length, '\0');
    if (!in.read(bytes.data(), static_cast<std::streamsize>(length)))
        throw Error(file.string() + ": its GGUF header is cut short");
    return sha256Hex(bytes);
}

std::string headerSha256(const std::filesystem::path& file) {
    if (isGgufFile(file)) return ggufHeaderSha256(file);
    std::ifstream in(file, std::ios::binary);
    unsigned char length[8] = {};
    if (!in.read(reinterpret_cast<char*>(length), 8))
        throw Error(file.string() + ": cannot read its safetensors header");
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | length[i];
    if (n > SafetensorsFile::kMaxHeaderBytes)
        throw Error(file.string() + ": its safetensors header is too large");
    std::string bytes(8 + n, '\0');
    std::copy(length, length + 8, bytes.begin());
    if (!in.read(bytes.data() + 8, static_cast<std::streamsize>(n)))
        throw Error(file.string() + ": its safetensors header is cut short");
    return sha256Hex(bytes);
}

// What the remembered fingerprint was computed from: each file's size and modification time.
std::string stamp(const std::filesystem::path& folder, const std::vector<std::string>& files) {
    std::string text;
    for (const auto& name : files) {
        std::error_code ec;
        const auto path = folder / name;
        text +=
            name + ':' + std::to_string(std::filesystem::file_size(path, ec)) + ':' +
            std::to_string(std::filesystem::last_write_time(path, ec).time_since_epoch().count()) +
            ';';
    }
    return text;
}

}  // namespace

WeightsFingerprint weightsFingerprint(const std::filesystem::path& location) {
    static std::mutex mutex;
    static std::map<std::string, std::pair<std::string, WeightsFingerprint>> remembered;
    std::error_code ec;
    const bool single = std::filesystem::is_regular_file(location, ec);  // a GGUF file
    const std::filesystem::path folder = single ? location.parent_path() : location;
    const std::vector<std::string> files =
        single ? std::vector<std::string>{location.filename().string()} : weightFiles(folder);
    const std::string key = std::filesystem::absolute(location).string();
    const std::string now = stamp(folder, files);
    {
        std::lock_guard lock(mutex);
        const auto it = remembered.find(key);
        if (it != remembered.end() && it->second.first == now) return it->second.second;
    }
    WeightsFingerprint fingerprint;
    fingerprint.files = files;
    if (files.size() == 1) {
        fingerprint.headerSha256 = headerSha256(folder / files.front());
    } else {
        std::string digests;
        for (const auto& name : files) digests += headerSha256(folder / name);
        fingerprint.headerSha256 = sha256Hex(digests);
    }
    std::lock_guard lock(mutex);
    remembered[key] = {now, fingerprint};
    return fingerprint;
}

}  // namespace qkv::ui
