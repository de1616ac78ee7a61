#pragma once
// Writes GGUF files as llama.cpp lays them out (version 3, 32-byte alignment): metadata of the
// kinds QKV Lab reads (integers, floats, bools, strings, and arrays of strings, integers, bools
// and floats), then the tensors, each written when the file is (a benchmark's gigabytes are
// never in memory at once). For the tests' fixtures and the benchmark's random models.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace qkv {

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

    // Fills a tensor's `size` stored bytes, when the file is written (in the order added).
    using Fill = std::function<void(std::uint8_t* bytes, std::size_t size)>;
    // A tensor of llama.cpp's shape ne (ne[0] the row length) and ggml type, `bytes` long.
    void addTensor(const std::string& name, const std::vector<std::uint64_t>& ne,
                   std::uint32_t ggmlType, std::uint64_t bytes, Fill fill);
    // A float32 tensor.
    void addTensor(const std::string& name, const std::vector<std::uint64_t>& ne,
                   const std::vector<float>& values);
    // A tensor of ggml type `ggmlType` whose stored bytes are `bytes`.
    void addRawTensor(const std::string& name, const std::vector<std::uint64_t>& ne,
                      std::uint32_t ggmlType, std::vector<std::uint8_t> bytes);
    // Throws qkv::Error when the file cannot be written whole.
    void write(const std::filesystem::path& file) const;

  private:
    struct Tensor {
        std::string name;
        std::vector<std::uint64_t> ne;
        std::uint32_t ggmlType = 0;
        std::uint64_t bytes = 0;
        Fill fill;
    };
    void key(const std::string& name, std::uint32_t type);
    std::vector<std::uint8_t> m_metadata;
    std::uint64_t m_count = 0;
    std::vector<Tensor> m_tensors;
};

}  // namespace qkv
