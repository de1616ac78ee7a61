#pragma once
// GGUF reader (llama.cpp's single-file format, versions 2 and 3), memory-mapped and validated.
//
//   u32 "GGUF" magic, u32 version, u64 tensor count, u64 metadata count
//   metadata: key (u64 length + UTF-8), u32 value type, value — integers of 8 to 64 bits, float32,
//             float64, bool, string, or an array (u32 element type, u64 count, elements)
//   tensor infos: name, u32 dimension count, u64 per dimension (ne[0] first: the row length),
//             u32 ggml type, u64 offset into the data region
//   padding to general.alignment (default 32), then the data region.
//
// Every count, length, offset and size is checked against the file before it is used: errors
// name the file and what is wrong (a truncated header, an offset past the end, overlapping or
// misaligned tensors, an unknown value type), never read outside the mapping.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/format/element_type.h"

namespace qkv {

class MappedFile;

// A metadata value: scalars as the widest type of their kind, arrays element by element.
struct GgufValue;
using GgufArray = std::vector<GgufValue>;
struct GgufValue {
    std::variant<std::uint64_t, std::int64_t, double, bool, std::string, GgufArray> value;
};

struct GgufTensor {
    std::string name;
    std::uint32_t ggmlType = 0;
    std::vector<std::uint64_t> ne;  // ne[0] is the row length (contiguous elements)
    const std::uint8_t* data = nullptr;
    std::uint64_t byteSize = 0;

    std::uint64_t elementCount() const;
    std::string describe() const;  // "blk.0.attn_q.weight [256, 256] Q4_K"
};

// The ggml type's name ("Q4_K"), or "type N" for an unknown one.
std::string ggmlTypeName(std::uint32_t type);
// The element type QKV Lab decodes a ggml type as; nullopt for the types it does not read.
std::optional<ElementType> elementTypeOfGgml(std::uint32_t type);

// The header of a whole GGUF file held in `bytes` (GgufFile parses its mapping; the fuzz target
// plain memory); tensor data pointers point into `bytes`.
struct GgufTable {
    std::uint32_t version = 0;
    std::uint64_t dataStart = 0;  // bytes before the data region: the header, metadata, infos
    std::map<std::string, GgufValue> metadata;
    std::map<std::string, GgufTensor> tensors;
};
GgufTable parseGguf(const std::uint8_t* bytes, std::size_t size, const std::filesystem::path& path);

// Whether `path` is a GGUF file: named *.gguf, or a file that starts with the GGUF magic (an
// Ollama blob has no extension).
bool isGgufFile(const std::filesystem::path& path);

class GgufFile {
  public:
    explicit GgufFile(const std::filesystem::path& path);  // throws qkv::Error
    ~GgufFile();

    const GgufTable& table() const { return m_table; }
    const std::filesystem::path& path() const;
    std::size_t fileSize() const;
    void checkUnchanged() const;

    // Typed metadata; nullopt when the key is absent. Throws naming the key when it holds
    // another kind of value.
    std::optional<std::int64_t> integer(const std::string& key) const;
    std::optional<double> number(const std::string& key) const;  // an integer or a float
    std::optional<std::string> string(const std::string& key) const;
    std::optional<bool> boolean(const std::string& key) const;
    const GgufArray* array(const std::string& key) const;

  private:
    std::unique_ptr<MappedFile> m_file;
    GgufTable m_table;
};

}  // namespace qkv
