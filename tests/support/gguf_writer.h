#pragma once
// Writes GGUF files for tests: metadata of the kinds QKV Lab reads (integers, floats, bools,
// strings, arrays of strings, integers and floats) and tensors (float32, or any type's bytes),
// laid out as llama.cpp writes them (version 3, 32-byte alignment).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace qkv::test {

class GgufWriter {
  public:
    void addUint32(const std::string& key, std::uint32_t value);
    void addFloat32(const std::string& key, float value);
    void addBool(const std::string& key, bool value);
    void addString(const std::string& key, const std::string& value);
    void addStrings(const std::string& key, const std::vector<std::string>& values);
    void addInt32s(const std::string& key, const std::vector<std::int32_t>& values);
    void addBools(const std::string& key, const std::vector<bool>& values);
    void addFloat32s(const std::string& key, const std::vector<float>& values);
    // A float32 tensor of llama.cpp's shape ne (ne[0] the row length).
    void addTensor(const std::string& name, const std::vector<std::uint64_t>& ne,
                   const std::vector<float>& values);
    // A tensor of ggml type `ggmlType` whose stored bytes are `bytes`.
    void addRawTensor(const std::string& name, const std::vector<std::uint64_t>& ne,
                      std::uint32_t ggmlType, std::vector<std::uint8_t> bytes);
    void write(const std::filesystem::path& file) const;

  private:
    struct Tensor {
        std::string name;
        std::vector<std::uint64_t> ne;
        std::uint32_t ggmlType = 0;
        std::vector<std::uint8_t> bytes;
    };
    void key(const std::string& name, std::uint32_t type);
    std::vector<std::uint8_t> m_metadata;
    std::uint64_t m_count = 0;
    std::vector<Tensor> m_tensors;
};

}  // namespace qkv::test
