#include "core/model/model.h"

#include <atomic>

#include "core/io/gguf.h"
#include "core/io/hub_cache.h"
#include "core/io/local_stores.h"
#include "core/io/safetensors.h"
#include "core/model/gguf_checkpoint.h"
#include "core/model/model_family.h"
#include "core/util/error.h"

namespace qkv {

Model::Model() {
    static std::atomic<std::uint64_t> opened{0};
    m_serial = ++opened;
}

std::unique_ptr<Model> Model::openTokenizerOnly(const std::filesystem::path& location) {
    const std::filesystem::path folder = resolveModelLocation(location.string());
    // A GGUF file's description and tokenizer are in its header, beside the mapped weights.
    if (isGgufFile(folder)) return open(location);
    std::unique_ptr<Model> model(new Model());
    model->m_folder = folder;
    model->m_architecture = loadArchitecture(folder / "config.json");
    try {
        model->m_tokenizer =
            loadTokenizer(folder, findFamily(model->m_architecture.modelType)->tokenizer);
    } catch (const Error& e) {
        model->m_tokenizerError = e.what();
    }
    return model;
}

std::unique_ptr<Model> Model::open(const std::filesystem::path& location) {
    const std::filesystem::path resolved = resolveModelLocation(location.string());
    if (isGgufFile(resolved)) {
        std::unique_ptr<Model> model = openGguf(resolved);
        // An Ollama model by its NAME:TAG (the blob is named by its digest), LM Studio's by
        // its location.
        if (resolved != location)
            model->m_name = ollamaModelName(location.string()).value_or(location.string());
        return model;
    }
    std::unique_ptr<Model> model = openTokenizerOnly(location);
    const std::filesystem::path& folder = model->m_folder;
    model->m_store = TensorStore::openFolder(folder);
    model->bindWeights();
    return model;
}

std::unique_ptr<Model> Model::openGguf(const std::filesystem::path& file) {
    GgufCheckpoint checkpoint = openGgufCheckpoint(file);
    std::unique_ptr<Model> model(new Model());
    model->m_folder = file;
    model->m_architecture = parseArchitecture(checkpoint.configJson, file.string());
    model->m_architecture.quantisation = checkpoint.formats;
    model->m_tokenizer = std::move(checkpoint.tokenizer);
    model->m_tokenizerError = checkpoint.tokenizerError;
    model->m_store = std::move(checkpoint.store);
    model->bindWeights();
    return model;
}

void Model::bindWeights() {
    // Checkpoints save tensors with or without the base-model prefix; the Hub's own files differ.
    const ModelFamily& family = *findFamily(m_architecture.modelType);
    TensorBinder binder(*m_store, family.tensorPrefixes, m_folder.string());
    if (m_architecture.quantisation == "fp8") binder.allowFp8Blocks();
    m_weights = family.bind(binder, m_architecture);
    m_parameters = binder.parameterCount();
    m_derived = binder.takeDerived();
}

Model::~Model() = default;

std::string Model::name() const {
    if (!m_name.empty()) return m_name;
    if (auto id = hubIdOfSnapshot(m_folder)) return *id;
    auto name = m_folder.filename().string();
    return name.empty() ? m_folder.parent_path().filename().string() : name;
}

std::uint64_t Model::weightBytes() const { return m_store ? m_store->totalBytes() : 0; }

void Model::checkUnchanged() const {
    if (m_store) m_store->checkUnchanged();
}

std::vector<Token> Model::tokenize(std::string_view text) const {
    if (!m_tokenizer)
        throw Error(m_folder.string() + ": cannot tokenize text: " + m_tokenizerError +
                    " (give token ids instead)");
    return m_tokenizer->encode(text);
}

std::vector<int> Model::targetIds(std::string_view targetText) const {
    if (!m_tokenizer)
        throw Error(m_folder.string() + ": cannot tokenize the target sentence: " +
                    m_tokenizerError + " (give its token ids instead)");
    std::vector<Token> tokens = m_tokenizer->encodeTarget(targetText);
    while (!tokens.empty() && tokens.back().special) tokens.pop_back();  // </s>
    std::vector<int> ids{m_architecture.decoderStartToken};
    for (const Token& t : tokens) ids.push_back(t.id);
    return ids;
}

std::string Model::pieceOrNumber(int id) const {
    const bool known = m_tokenizer && id >= 0 && id < m_tokenizer->vocabSize();
    return known ? m_tokenizer->piece(id) : std::to_string(id);
}

}  // namespace qkv
