#include "core/io/model_config.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "core/util/error.h"
#include "core/util/mapped_file.h"

namespace qkv {
namespace {

using json = nlohmann::json;

// Limits far above any released model (d_model 18432, MLP width 53248, 2^23 positions) that keep
// every size the forward computes representable.
constexpr std::int64_t kMaxCount = std::int64_t{1} << 30;
constexpr std::int64_t kMaxWidth = std::int64_t{1} << 24;
// config.json files are kilobytes; a limit keeps a hostile one from exhausting memory.
constexpr std::size_t kMaxConfigBytes = 16u << 20;

class ConfigReader {
public:
    ConfigReader(const json& doc, const std::string& where) : m_doc(doc), m_where(where) {}

    int positiveInt(const char* key, std::int64_t limit = kMaxCount) const {
        auto it = m_doc.find(key);
        if (it == m_doc.end() || it->is_null()) throw Error(m_where + ": missing \"" + key + "\"");
        if (!it->is_number_integer() || it->get<std::int64_t>() <= 0)
            throw Error(m_where + ": \"" + key + "\" must be a positive integer");
        if (it->get<std::int64_t>() > limit)
            throw Error(m_where + ": \"" + key + "\" = " + it->dump() + " exceeds " +
                        std::to_string(limit) + ", the largest QKV Lab supports");
        return it->get<int>();
    }
    // A layer width (d_model, MLP width, head size): bounded so that the products the forward
    // forms from them (3·d_model, heads·d_k) stay far inside int.
    int width(const char* key) const { return positiveInt(key, kMaxWidth); }
    int widthOr(const char* key, int fallback) const {
        auto it = m_doc.find(key);
        return (it == m_doc.end() || it->is_null()) ? fallback : width(key);
    }
    int positiveIntOr(const char* key, int fallback) const {
        auto it = m_doc.find(key);
        return (it == m_doc.end() || it->is_null()) ? fallback : positiveInt(key);
    }
    float numberOr(const char* key, float fallback) const {
        auto it = m_doc.find(key);
        if (it == m_doc.end() || it->is_null()) return fallback;
        const double value = it->is_number() ? it->get<double>() : -1.0;
        if (!(value >= 0.0 && value <= std::numeric_limits<float>::max()))
            throw Error(m_where + ": \"" + key + "\" must be a non-negative number");
        return static_cast<float>(value);
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
    c.dModel = r.width("n_embd");
    c.dFF = r.widthOr("n_inner", 4 * c.dModel);
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
    c.dModel = r.width("hidden_size");
    c.dFF = r.width("intermediate_size");
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
    c.dModel = r.width("hidden_size");
    c.dFF = r.width("intermediate_size");
    c.vocabSize = r.positiveInt("vocab_size");
    c.contextLength = r.positiveIntOr("max_position_embeddings", 2048);
    c.headDim = r.widthOr("head_dim", 0);  // 0: d_model / heads, derived by the caller
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
    if (static_cast<std::int64_t>(config.heads) * config.headDim > kMaxWidth)
        throw Error(where + ": " + std::to_string(config.heads) + " heads of " +
                    std::to_string(config.headDim) + " dimensions exceed the " +
                    std::to_string(kMaxWidth) + " attention width QKV Lab supports");
    if (config.heads % config.kvHeads != 0)
        throw Error(where + ": " + std::to_string(config.heads) + " query heads are not a " +
                    "multiple of " + std::to_string(config.kvHeads) + " key/value heads");
    if (!config.learnedPositions && config.headDim % 2 != 0)
        throw Error(where + ": rotary embeddings need an even head dimension");
    return config;
}

ModelConfig loadModelConfig(const std::filesystem::path& configJson) {
    std::error_code ec;
    if (!std::filesystem::exists(configJson, ec))
        throw Error(configJson.string() + ": cannot read (missing config.json?)");
    const MappedFile file(configJson);
    if (file.size() > kMaxConfigBytes)
        throw Error(configJson.string() + ": " + std::to_string(file.size()) +
                    " bytes exceeds the " + std::to_string(kMaxConfigBytes) +
                    "-byte limit for a config.json");
    return parseModelConfig(std::string(reinterpret_cast<const char*>(file.data()), file.size()),
                            configJson.string());
}

}  // namespace qkv
