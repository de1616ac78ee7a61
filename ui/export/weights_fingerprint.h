#pragma once
// A short fingerprint of a checkpoint's weights for a figure's provenance: the SHA-256 of each
// safetensors file's header (its 8-byte length and JSON header: every tensor's name, dtype, shape
// and offsets), not of the gigabytes after it. Several shards: the SHA-256 of their header
// digests (lowercase hex, concatenated in file-name order).
#include <filesystem>
#include <string>
#include <vector>

namespace qkv::ui {

struct WeightsFingerprint {
    std::string headerSha256;
    std::vector<std::string> files;  // the file names hashed, in order
};

// model.safetensors, else the shards model.safetensors.index.json names; a GGUF file (`folder`
// naming the file): the SHA-256 of what precedes its data. Remembered per folder
// while the files' sizes and times stay the same, so views may ask on every redraw. Throws
// qkv::Error when a file cannot be read.
WeightsFingerprint weightsFingerprint(const std::filesystem::path& location);

}  // namespace qkv::ui
