#pragma once
// safetensors reader (memory-mapped, validated).
//
// File layout (https://github.com/huggingface/safetensors):
//   u64 little-endian  N        length of the JSON header in bytes
//   N bytes            header   UTF-8 JSON object:
//                                 "__metadata__": {string: string}          (optional)
//                                 "<tensor name>": {"dtype": "F32"|"F16"|"BF16"|...,
//                                                   "shape": [d0, d1, ...],
//                                                   "data_offsets": [begin, end]}
//   rest               data     tensor bytes, row-major little-endian; offsets are relative to
//                               the start of this region.
// A sharded checkpoint adds `model.safetensors.index.json`:
//   {"metadata": {...}, "weight_map": {"<tensor name>": "<shard file name>", ...}}
//
// Every offset, size and shape is checked on open: the header must lie inside the file and be
// valid JSON, offsets must be in range and must not overlap, and each tensor's byte size must
// equal its element count times its dtype size. Violations throw qkv::Error naming the file
// and tensor. Tensors of dtypes other than F32/F16/BF16 may be present (e.g. int64 buffers);
// asking for one of them as floats is an error.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/format/element_type.h"

namespace qkv {

class MappedFile;

// Block: a GGUF file's quantised tensor (TensorInfo::blockType), never a safetensors dtype.
enum class DType { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool, F8E4M3, F8E5M2, Other, Block };

const char* dtypeName(DType dtype);
std::size_t dtypeSize(DType dtype);  // bytes per element

struct TensorInfo {
    std::string name;
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;
    const std::uint8_t* data = nullptr;  // inside the file mapping
    std::size_t byteSize = 0;
    std::filesystem::path file;
    ElementType blockType = ElementType::F32;  // DType::Block: its format (Q4_K, ...)
    // For a [rows, cols] weight stored with its rows in another order than the model uses them
    // (a GGUF file's Llama W_Q and W_K): the stored row of each row the model uses. Empty: as
    // stored.
    std::vector<int> rowOrder;
    // Likewise for its columns (the inputs of a product): the stored column of each input the
    // model uses (a GGUF file's Qwen3.5 out_proj, whose value heads llama.cpp reordered).
    std::vector<int> columnOrder;

    std::int64_t elementCount() const;
    std::string describe() const;  // e.g. "h.0.attn.c_attn.weight [64, 192] F32"
};

// The tensor table and metadata of a whole .safetensors file held in `bytes`, with every check
// above; TensorInfo::data points into `bytes`, `path` names the file in errors. SafetensorsFile
// runs it on its mapping; the fuzz target on plain memory.
struct SafetensorsTable {
    std::map<std::string, TensorInfo> tensors;
    std::map<std::string, std::string> metadata;
};
SafetensorsTable parseSafetensors(const std::uint8_t* bytes, std::size_t size,
                                  const std::filesystem::path& path);

// The weight_map of a model.safetensors.index.json held in `text`: tensor name -> shard file
// name, each a plain file name in the model folder. `path` names the index in errors.
std::map<std::string, std::string> parseShardIndex(std::string_view text,
                                                   const std::filesystem::path& path);

// One .safetensors file.
class SafetensorsFile {
  public:
    // Upper bound on the JSON header; real headers are well under a megabyte per thousand tensors.
    static constexpr std::uint64_t kMaxHeaderBytes = 100u * 1024u * 1024u;

    explicit SafetensorsFile(const std::filesystem::path& path);  // throws qkv::Error
    ~SafetensorsFile();

    const std::map<std::string, TensorInfo>& tensors() const { return m_tensors; }
    const std::map<std::string, std::string>& metadata() const { return m_metadata; }
    const std::filesystem::path& path() const;
    std::size_t fileSize() const;
    // Throws qkv::Error when the file changed on disk since it was opened (MappedFile).
    void checkUnchanged() const;

  private:
    std::unique_ptr<MappedFile> m_file;
    std::map<std::string, TensorInfo> m_tensors;
    std::map<std::string, std::string> m_metadata;
};

// All tensors of a checkpoint folder: `model.safetensors`, or the shards named by
// `model.safetensors.index.json`. Converts F16/BF16 (and unaligned F32) to float32 on request,
// keeping the converted copy for the store's lifetime; aligned F32 is returned in place. Weight
// matrices are viewed in place in their stored type instead (TensorBinder); floats() serves
// vectors and the rare tensor that cannot be viewed.
// The index is held to the same size limit as a header.
// What holds the tensors of a store made by another reader (a GGUF file): their memory lives as
// long as it does.
class TensorSource {
  public:
    virtual ~TensorSource() = default;
    virtual void checkUnchanged() const = 0;
};

class TensorStore {
  public:
    static std::unique_ptr<TensorStore> openFolder(const std::filesystem::path& dir);
    static std::unique_ptr<TensorStore> openFile(const std::filesystem::path& file);
    // The tensors another reader found, under the names binders look for (Hugging Face's).
    static std::unique_ptr<TensorStore> fromTensors(std::unique_ptr<TensorSource> source,
                                                    std::vector<TensorInfo> tensors);
    ~TensorStore();

    const TensorInfo* find(const std::string& name) const;  // nullptr when absent
    std::vector<std::string> names() const;
    std::size_t tensorCount() const { return m_index.size(); }
    std::uint64_t totalBytes() const;  // sum of tensor byte sizes
    // Throws qkv::Error when any of the files changed on disk since it was opened; run it before
    // reading tensor data after a pause (see MappedFile for the residual race).
    void checkUnchanged() const;

    // float32 view of a tensor's elements (row-major). Throws for non-float dtypes, and naming
    // the sizes when a conversion would not fit in the available memory.
    const float* floats(const TensorInfo& tensor);

  private:
    TensorStore() = default;
    std::vector<std::unique_ptr<SafetensorsFile>> m_files;
    std::unique_ptr<TensorSource> m_source;
    std::vector<TensorInfo> m_adopted;  // fromTensors' (m_index points into it)
    std::map<std::string, const TensorInfo*> m_index;
    std::map<const TensorInfo*, std::unique_ptr<float[]>> m_converted;
};

}  // namespace qkv
