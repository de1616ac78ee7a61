#pragma once
// Writes a Hugging Face model folder's tensors into a GGUF file the way llama.cpp's converter
// does (its tensor names, ggml's shape order, Llama's per-head interleaved Q and K rows, Gemma's
// norms stored as 1 + w), so that a shared reference model can be tried as a GGUF file.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/io/safetensors.h"
#include "tests/support/gguf_writer.h"

namespace qkv::test {

class GgufFromFolder {
  public:
    explicit GgufFromFolder(const std::filesystem::path& folder);
    ~GgufFromFolder();

    GgufWriter& gguf() { return m_gguf; }
    // The folder's tensor `hfName` as `ggufName`, float32. With `interleavedHeads`, each of that
    // many heads has its rows in ggml's rotary order; `shift` is added to every value.
    void add(const std::string& ggufName, const std::string& hfName, int interleavedHeads = 0,
             float shift = 0.0f);
    // The tensors `hfNames` (one matrix each, the same shape) stacked as llama.cpp stacks a
    // layer's experts: ggml shape [in, out, count].
    void addStacked(const std::string& ggufName, const std::vector<std::string>& hfNames);
    void write(const std::filesystem::path& file) const { m_gguf.write(file); }

  private:
    std::unique_ptr<TensorStore> m_store;
    GgufWriter m_gguf;
};

}  // namespace qkv::test
