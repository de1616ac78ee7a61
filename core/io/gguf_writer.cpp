#include "core/io/gguf_writer.h"

#include <cstring>
#include <fstream>
#include <memory>

#include "core/util/error.h"

namespace qkv {
namespace {

template <typename T>
void put(std::vector<std::uint8_t>& out, T value) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(&value);
    out.insert(out.end(), p, p + sizeof value);
}

void putString(std::vector<std::uint8_t>& out, const std::string& s) {
    put<std::uint64_t>(out, s.size());
    out.insert(out.end(), s.begin(), s.end());
}

// GGUF value types.
constexpr std::uint32_t kUint32 = 4, kInt32 = 5, kFloat32 = 6, kBool = 7, kString = 8, kArray = 9;
constexpr std::uint64_t kAlignment = 32;

std::uint64_t aligned(std::uint64_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

void GgufWriter::key(const std::string& name, std::uint32_t type) {
    putString(m_metadata, name);
    put(m_metadata, type);
    ++m_count;
}

void GgufWriter::addUint32(const std::string& name, std::uint32_t value) {
    key(name, kUint32);
    put(m_metadata, value);
}

void GgufWriter::addFloat32(const std::string& name, float value) {
    key(name, kFloat32);
    put(m_metadata, value);
}

void GgufWriter::addBool(const std::string& name, bool value) {
    key(name, kBool);
    put<std::uint8_t>(m_metadata, value ? 1 : 0);
}

void GgufWriter::addString(const std::string& name, const std::string& value) {
    key(name, kString);
    putString(m_metadata, value);
}

void GgufWriter::addStrings(const std::string& name, const std::vector<std::string>& values) {
    key(name, kArray);
    put(m_metadata, kString);
    put<std::uint64_t>(m_metadata, values.size());
    for (const std::string& v : values) putString(m_metadata, v);
}

void GgufWriter::addInt32s(const std::string& name, const std::vector<std::int32_t>& values) {
    key(name, kArray);
    put(m_metadata, kInt32);
    put<std::uint64_t>(m_metadata, values.size());
    for (std::int32_t v : values) put(m_metadata, v);
}

void GgufWriter::addBools(const std::string& name, const std::vector<bool>& values) {
    key(name, kArray);
    put(m_metadata, kBool);
    put<std::uint64_t>(m_metadata, values.size());
    for (bool v : values) put<std::uint8_t>(m_metadata, v ? 1 : 0);
}

void GgufWriter::addFloat32s(const std::string& name, const std::vector<float>& values) {
    key(name, kArray);
    put(m_metadata, kFloat32);
    put<std::uint64_t>(m_metadata, values.size());
    for (float v : values) put(m_metadata, v);
}

void GgufWriter::addTensor(const std::string& name, const std::vector<std::uint64_t>& ne,
                           std::uint32_t ggmlType, std::uint64_t bytes, Fill fill) {
    m_tensors.push_back({name, ne, ggmlType, bytes, std::move(fill)});
}

void GgufWriter::addTensor(const std::string& name, const std::vector<std::uint64_t>& ne,
                           const std::vector<float>& values) {
    addTensor(
        name, ne, 0, values.size() * sizeof(float),  // ggml type 0: F32
        [values](std::uint8_t* out, std::size_t size) { std::memcpy(out, values.data(), size); });
}

void GgufWriter::addRawTensor(const std::string& name, const std::vector<std::uint64_t>& ne,
                              std::uint32_t ggmlType, std::vector<std::uint8_t> bytes) {
    const std::uint64_t size = bytes.size();
    addTensor(name, ne, ggmlType, size,
              [stored = std::move(bytes)](std::uint8_t* out, std::size_t n) {
                  std::memcpy(out, stored.data(), n);
              });
}

void GgufWriter::write(const std::filesystem::path& file) const {
    std::vector<std::uint8_t> header;
    put<std::uint32_t>(header, 0x46554747);  // "GGUF"
    put<std::uint32_t>(header, 3);
    put<std::uint64_t>(header, m_tensors.size());
    put<std::uint64_t>(header, m_count);
    header.insert(header.end(), m_metadata.begin(), m_metadata.end());
    std::uint64_t offset = 0;
    for (const Tensor& t : m_tensors) {
        putString(header, t.name);
        put<std::uint32_t>(header, static_cast<std::uint32_t>(t.ne.size()));
        for (std::uint64_t d : t.ne) put(header, d);
        put<std::uint32_t>(header, t.ggmlType);
        put(header, offset);
        offset += aligned(t.bytes);
    }
    header.resize(aligned(header.size()));
    std::ofstream stream(file, std::ios::binary);
    stream.write(reinterpret_cast<const char*>(header.data()),
                 static_cast<std::streamsize>(header.size()));
    std::vector<std::uint8_t> chunk;
    for (const Tensor& t : m_tensors) {
        chunk.assign(aligned(t.bytes), 0);
        t.fill(chunk.data(), t.bytes);
        stream.write(reinterpret_cast<const char*>(chunk.data()),
                     static_cast<std::streamsize>(chunk.size()));
    }
    stream.close();
    if (!stream) throw Error(file.string() + ": cannot write the GGUF file");
}

}  // namespace qkv
