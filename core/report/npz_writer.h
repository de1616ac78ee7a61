#pragma once
// numpy's .npz archive (what numpy.load opens): a zip of .npy arrays, each float32 or int64
// little-endian in C order, plus text members (numpy.load returns those as bytes). Arrays are
// read from the caller's memory while the archive is written (no copy of a trace), and the file
// appears whole or not at all: libzip writes a temporary beside it and renames it on close.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

struct zip;

namespace qkv {

class NpzWriter {
  public:
    // Throws qkv::Error naming the file when it cannot be created.
    explicit NpzWriter(const std::filesystem::path& file);
    ~NpzWriter();  // without close(): nothing is written
    NpzWriter(const NpzWriter&) = delete;
    NpzWriter& operator=(const NpzWriter&) = delete;

    // `name`.npy of `shape`; `data` must stay alive until close().
    void addFloat32(const std::string& name, const float* data, std::vector<std::int64_t> shape);
    void addInt64(const std::string& name, const std::int64_t* data,
                  std::vector<std::int64_t> shape);
    void addText(const std::string& fileName, std::string text);
    // Writes the archive; throws qkv::Error naming the file (a full disk, say), leaving no file.
    void close();

    struct Member;  // internal: what libzip reads one member from

  private:
    void add(const std::string& fileName, Member member);

    std::filesystem::path m_file;
    zip* m_archive = nullptr;
    std::vector<Member*> m_members;  // owned; read by libzip until close()
};

}  // namespace qkv
