#pragma once
// Writes a Hugging Face model folder's tensors into a GGUF file the way llama.cpp's converter
// does (its tensor names, ggml's shape order, Llama's per-head interleaved Q and K rows, Gemma's
// norms stored as 1 + w), so that a shared reference model can be tried as a GGUF file.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/io/gguf_writer.h"
#include "core/io/safetensors.h"

namespace qkv::test {

// The metadata a GGUF reader needs to know a model's shape, under "ARCH.": the keys llama.cpp's
// converter writes for every architecture.
struct GgufShape {
    std::string arch;
    int layers = 2;
    int width = 64;  // embedding_length
    int feedForward = 128;
    int heads = 4;
    int kvHeads = 2;  // 0: not written (a file that lists them per layer)
    float ropeBase = 10000.0f;
    float normEps = 1e-6f;
    int context = 128;
};

// (llama.cpp's name, transformers' name) of a layer's tensors, without "blk.L." and ".weight".
using LayerTensorNames = std::vector<std::pair<std::string, std::string>>;

// A gated MLP's three matrices as Llama's converter names them.
inline const LayerTensorNames kGatedMlpTensors = {
    {"ffn_gate", "mlp.gate_proj"}, {"ffn_up", "mlp.up_proj"}, {"ffn_down", "mlp.down_proj"}};

class GgufFromFolder {
  public:
    explicit GgufFromFolder(const std::filesystem::path& folder);
    GgufFromFolder(GgufFromFolder&&) noexcept;
    ~GgufFromFolder();

    GgufWriter& gguf() { return m_gguf; }
    // general.architecture and the shape's keys.
    void describe(const GgufShape& shape);
    // The folder's tensor `hfName` as `ggufName`, float32. With `interleavedHeads`, each of that
    // many heads has its rows in ggml's rotary order; `shift` is added to every value.
    void add(const std::string& ggufName, const std::string& hfName, int interleavedHeads = 0,
             float shift = 0.0f);
    // Layer `layer`'s tensors: each (ours, theirs) is llama.cpp's blk.L.ours.weight made from the
    // folder's model.layers.L.theirs.weight, plus `shift` (Gemma's norms, stored as 1 + w).
    void addLayer(int layer, const LayerTensorNames& names, float shift = 0.0f);
    // The folder's tensor `hfName`: its shape, and its values as float32.
    const TensorInfo& tensor(const std::string& hfName) const;
    std::vector<float> values(const std::string& hfName) const;
    // token_embd and output_norm (the norm's values plus `normShift`: Gemma's 1 + w), and
    // output unless the model ties it to the embedding.
    void addEmbeddingsAndHead(bool untiedOutput, float normShift = 0.0f);
    // The tensors `hfNames` (one matrix each, the same shape) stacked as llama.cpp stacks a
    // layer's experts: ggml shape [in, out, count].
    void addStacked(const std::string& ggufName, const std::vector<std::string>& hfNames);
    // `count` experts' matrices `hfPrefix` + E + `hfSuffix` (E = 0, 1, ...) stacked as `ggufName`.
    void addExperts(const std::string& ggufName, const std::string& hfPrefix,
                    const std::string& hfSuffix, int count);
    // DeepSeek's kv_b_proj `hfName` ([heads·(nope + value), rank]) split as newer converters
    // split it: `blk` + attn_k_b, each head's key rows transposed (ggml [nope, rank, heads]),
    // and attn_v_b, its value rows ([rank, value, heads]).
    void addLatentKeyValueUp(const std::string& blk, const std::string& hfName, int heads,
                             int nope);
    void write(const std::filesystem::path& file) const { m_gguf.write(file); }

  private:
    std::unique_ptr<TensorStore> m_store;
    GgufWriter m_gguf;
};

}  // namespace qkv::test
