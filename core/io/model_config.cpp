#include "core/io/model_config.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/util/error.h"

namespace qkv {
namespace {

using json = nlohmann::json;

class ConfigReader {
public:
    ConfigReader(const json& doc, const std::string& where) : m_doc(doc), m_where(where) {}

    int positiveInt(const char* key) const {
        auto it = m_doc.find(key);
        if (it == m_doc.end() || it->is_null()) throw Error(m_where + ": missing \"" + key + "\"");
        if (!it->is_number_integer() || it->get<std::int64_t>() <= 0 ||
            it->get<std::int64_t>() > (1 << 30))
            throw Error(m_where + ": \"" + key + "\" must be a positive integer");
        return it->get<int>();
    }
    int positiveIntOr(const char* key, int fallback) const {
        auto it = m_doc.find(key);
        return (it == m_doc.end() || it->is_null()) ? fallback : positiveInt(key);
    }
    float numberOr(const char* key, float fallback) const {
        auto it = m_doc.find(key);
        if (it == m_doc.end() || it->is_null()) return fallback;
        if (!it->is_number()) throw Error(m_where + ": \"" + key + "\" must be a number");
        return it->get<float>();
    }
    bool boolOr(const char* key, bool fallback) const {
        auto it = m_doc.find(key);
        if (it == m_doc.end() || it->is_null()) return fallback;
        if (!it->is_boolean()) throw Error(m_where + ": \"" + key + "\" must be true or false");
        return it->get<bool>();
    }
    std::string stringOr(const char* key, const std::string& fallback) const {
        auto it = m_doc.find(key);
        if (it == m_doc.end() || it->is_null()) return fallback;
        if (!it->is_string()) throw Error(m_where + ": \"" + key + "\" must be a string");
        return it->get<std::string>();
    }
    const std::string& where() const { return m_where; }

private:
    const json& m_doc;
    std::string m_where;
};

Activation parseActivation(const std::string& name, const std::string& where) {
    if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast")
        return Activation::GeluTanh;
    if (name == "gelu") return Activation::GeluExact;
    if (name == "relu") return Activation::Relu;
    throw Error(where + ": unsupported activation function \"" + name + "\"");
}

void readGpt2(const ConfigReader& r, ModelConfig& c) {
    c.layers = r.positiveInt("n_layer");
    c.heads = r.positiveInt("n_head");
    c.kvHeads = c.heads;
    c.dModel = r.positiveInt("n_embd");
    c.dFF = r.positiveIntOr("n_inner", 4 * c.dModel);
    c.vocabSize = r.positiveInt("vocab_size");
    c.contextLength = r.positiveIntOr("n_positions", r.positiveIntOr("n_ctx", 1024));
    c.normEps = r.numberOr("layer_norm_epsilon", 1e-5f);
    c.activation = parseActivation(r.stringOr("activation_function", "gelu_new"), r.where());
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
    if (!r.boolOr("scale_attn_weights", true) || r.boolOr("scale_attn_by_inverse_layer_idx", false) ||
        r.boolOr("reorder_and_upcast_attn", false))
        throw Error(r.where() + ": GPT-2 attention-scaling variants (scale_attn_weights=false, "
                                "scale_attn_by_inverse_layer_idx, reorder_and_upcast_attn) "
                                "are not supported");
}

void readBert(const ConfigReader& r, ModelConfig& c) {
    c.layers = r.positiveInt("num_hidden_layers");
    c.heads = r.positiveInt("num_attention_heads");
    c.kvHeads = c.heads;
    c.dModel = r.positiveInt("hidden_size");
    c.dFF = r.positiveInt("intermediate_size");
    c.vocabSize = r.positiveInt("vocab_size");
    c.contextLength = r.positiveIntOr("max_position_embeddings", 512);
    c.typeVocabSize = r.positiveIntOr("type_vocab_size", 2);
    c.normEps = r.numberOr("layer_norm_eps", 1e-12f);
    c.activation = parseActivation(r.stringOr("hidden_act", "gelu"), r.where());
    c.preNorm = false;
    c.causal = false;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", true);
    const std::string positions = r.stringOr("position_embedding_type", "absolute");
    if (positions != "absolute")
        throw Error(r.where() + ": BERT position_embedding_type \"" + positions +
                    "\" is not supported (only \"absolute\")");
}

void readLlama(const ConfigReader& r, ModelConfig& c) {
    c.layers = r.positiveInt("num_hidden_layers");
    c.heads = r.positiveInt("num_attention_heads");
    c.kvHeads = r.positiveIntOr("num_key_value_heads", c.heads);
    c.dModel = r.positiveInt("hidden_size");
    c.dFF = r.positiveInt("intermediate_size");
    c.vocabSize = r.positiveInt("vocab_size");
    c.contextLength = r.positiveIntOr("max_position_embeddings", 2048);
    c.headDim = r.positiveIntOr("head_dim", 0);  // 0: d_model / heads, derived by the caller
    c.normEps = r.numberOr("rms_norm_eps", 1e-6f);
    c.ropeTheta = r.numberOr("rope_theta", 10000.0f);
    c.norm = NormKind::RmsNorm;
    c.learnedPositions = false;
    c.activation = Activation::SwiGlu;
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", false);
    const std::string act = r.stringOr("hidden_act", "silu");
    if (act != "silu") throw Error(r.where() + ": Llama hidden_act \"" + act + "\" unsupported");
    if (r.boolOr("attention_bias", false) || r.boolOr("mlp_bias", false))
        throw Error(r.where() + ": Llama attention_bias/mlp_bias are not supported");
    if (r.positiveIntOr("pretraining_tp", 1) != 1)
        throw Error(r.where() + ": pretraining_tp other than 1 is not supported");
}

}  // namespace

const char* architectureName(Architecture arch) {
    switch (arch) {
        case Architecture::Gpt2: return "gpt2";
        case Architecture::Bert: return "bert";
        case Architecture::Llama: return "llama";
    }
    return "unknown";
}

ModelConfig parseModelConfig(const std::string& jsonText, const std::string& where) {
    json doc;
    try {
        doc = json::parse(jsonText);
    } catch (const json::exception& e) {
        throw Error(where + ": not valid JSON (" + e.what() + ")");
    }
    if (!doc.is_object()) throw Error(where + ": not a JSON object");
    ConfigReader reader(doc, where);
    ModelConfig config;
    config.modelType = reader.stringOr("model_type", "");
    if (config.modelType == "gpt2") {
        config.architecture = Architecture::Gpt2;
        readGpt2(reader, config);
    } else if (config.modelType == "bert") {
        config.architecture = Architecture::Bert;
        readBert(reader, config);
    } else if (config.modelType == "llama" || config.modelType == "mistral") {
        config.architecture = Architecture::Llama;
        readLlama(reader, config);
        auto scaling = doc.find("rope_scaling");
        if (scaling != doc.end() && !scaling->is_null())
            throw Error(where + ": rope_scaling is not supported");
    } else {
        throw Error(where + ": unsupported architecture \"" +
                    (config.modelType.empty() ? std::string("(no model_type)") : config.modelType) +
                    "\"; supported model_type values: gpt2, bert, llama, mistral");
    }
    if (config.headDim == 0) {
        if (config.dModel % config.heads != 0)
            throw Error(where + ": hidden size " + std::to_string(config.dModel) +
                        " is not divisible by " + std::to_string(config.heads) + " heads");
        config.headDim = config.dModel / config.heads;
    }
    if (config.heads % config.kvHeads != 0)
        throw Error(where + ": " + std::to_string(config.heads) + " query heads are not a " +
                    "multiple of " + std::to_string(config.kvHeads) + " key/value heads");
    if (!config.learnedPositions && config.headDim % 2 != 0)
        throw Error(where + ": rotary embeddings need an even head dimension");
    return config;
}

ModelConfig loadModelConfig(const std::filesystem::path& configJson) {
    std::ifstream in(configJson, std::ios::binary);
    if (!in) throw Error(configJson.string() + ": cannot read (missing config.json?)");
    std::stringstream buffer;
    buffer << in.rdbuf();
    return parseModelConfig(buffer.str(), configJson.string());
}

}  // namespace qkv
