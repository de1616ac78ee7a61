#include "tests/support/gguf_writer.h"

#include <cstring>
#include <fstream>
#include <stdexcept>

namespace qkv::test {
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
                           const std::vector<float>& values) {
    std::vector<std::uint8_t> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    m_tensors.push_back({name, ne, 0, std::move(bytes)});  // ggml type 0: F32
}

void GgufWriter::addRawTensor(const std::string& name, const std::vector<std::uint64_t>& ne,
                              std::uint32_t ggmlType, std::vector<std::uint8_t> bytes) {
    m_tensors.push_back({name, ne, ggmlType, std::move(bytes)});
}

void GgufWriter::write(const std::filesystem::path& file) const {
    std::vector<std::uint8_t> out;
    put<std::uint32_t>(out, 0x46554747);
    put<std::uint32_t>(out, 3);
    put<std::uint64_t>(out, m_tensors.size());
    put<std::uint64_t>(out, m_count);
    out.insert(out.end(), m_metadata.begin(), m_metadata.end());
    std::uint64_t offset = 0;
    for (const Tensor& t : m_tensors) {
        putString(out, t.name);
        put<std::uint32_t>(out, static_cast<std::uint32_t>(t.ne.size()));
        for (std::uint64_t d : t.ne) put(out, d);
        put<std::uint32_t>(out, t.ggmlType);
        put(out, offset);
        offset += (t.bytes.size() + 31) / 32 * 32;
    }
    out.resize((out.size() + 31) / 32 * 32);
    for (const Tensor& t : m_tensors) {
        const std::size_t start = out.size();
        out.resize(start + (t.bytes.size() + 31) / 32 * 32);
        std::memcpy(out.data() + start, t.bytes.data(), t.bytes.size());
    }
    std::ofstream stream(file, std::ios::binary);
    stream.write(reinterpret_cast<const char*>(out.data()),
                 static_cast<std::streamsize>(out.size()));
    if (!stream) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace qkv::test
