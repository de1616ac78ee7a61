#pragma once
// A checkpoint folder opened for analysis: config.json, the memory-mapped safetensors, the
// architecture-neutral weight views and (when the folder has one) its tokenizer.
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <string>

#include "core/model/architecture.h"
#include "core/model/model_weights.h"
#include "core/tokenize/tokenizer.h"

namespace qkv {

class TensorStore;

class Model {
  public:
    // `location` is a folder, a GGUF file (gguf_checkpoint.h) — also as ollama:NAME[:TAG] or
    // lmstudio:PUBLISHER/MODEL/FILE (local_stores.h) — or a Hugging Face model id found in the
    // local cache (resolveModelLocation, core/io/hub_cache.h). Throws qkv::Error
    // naming the file or tensor at fault. A folder without usable tokenizer files still opens
    // (token ids can be given directly); tokenizerError() says why. Weights are viewed in the file
    // mapping in their stored type; a tensor that must be widened and would not fit in memory is
    // refused.
    static std::unique_ptr<Model> open(const std::filesystem::path& location);
    // config.json and the tokenizer only, for tokenizing: no weights are read (the folder may
    // hold none yet, as while a download runs), so weights() is empty and hasLogits() false.
    static std::unique_ptr<Model> openTokenizerOnly(const std::filesystem::path& location);
    ~Model();

    const std::filesystem::path& folder() const { return m_folder; }
    // "ollama:NAME:TAG" as named, the Hub id of a cached snapshot, else the folder's (or file's)
    // name.
    std::string name() const;
    const Architecture& architecture() const { return m_architecture; }
    const ModelWeights& weights() const { return m_weights; }
    const Tokenizer* tokenizer() const { return m_tokenizer.get(); }
    const std::string& tokenizerError() const { return m_tokenizerError; }
    std::uint64_t parameterCount() const { return m_parameters; }
    std::uint64_t weightBytes() const;  // bytes of all tensors in the checkpoint files
    bool hasLogits() const { return !m_weights.lmHead.weight.empty(); }
    // Unique among every Model this process opens, never reused: what a memo of something
    // derived from the weights is keyed by (an address could be reused by the next model).
    std::uint64_t serial() const { return m_serial; }

    // Throws qkv::Error when a weights file changed on disk since open() (truncated, rewritten or
    // replaced): reading its mapping could then crash the process. Call before using weights();
    // ForwardPass::run does. See MappedFile for the race that remains.
    void checkUnchanged() const;

    // Ids for text via the folder's tokenizer; throws when there is none.
    std::vector<Token> tokenize(std::string_view text) const;
    // Encoder-decoder models: the decoder's input for a target sentence — its start token, then
    // the tokens of the tokenizer's target side without the closing end token. Throws when
    // there is no tokenizer.
    std::vector<int> targetIds(std::string_view targetText) const;
    // The vocabulary entry of `id`, or its number where the tokenizer has none (no tokenizer, or
    // an id past its vocabulary): how ids typed directly are shown.
    std::string pieceOrNumber(int id) const;

  private:
    Model();
    static std::unique_ptr<Model> openGguf(const std::filesystem::path& file);
    void bindWeights();  // m_weights from m_store, by the architecture's family
    std::filesystem::path m_folder;
    std::string m_name;  // what the user named a model that lives in another tool's store
    Architecture m_architecture;
    std::unique_ptr<TensorStore> m_store;
    ModelWeights m_weights;
    std::deque<std::vector<float>> m_derived;  // tensors the family's binder derived
    std::unique_ptr<Tokenizer> m_tokenizer;
    std::string m_tokenizerError;
    std::uint64_t m_parameters = 0;
    std::uint64_t m_serial;
};

}  // namespace qkv
