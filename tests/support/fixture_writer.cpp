#include "tests/support/fixture_writer.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>

#include "core/io/safetensors.h"
#include "core/model/model.h"
#include "core/util/error.h"
#include "core/util/half.h"

namespace qkv::test {

TempDir::TempDir() {
    std::random_device random;
    m_path = std::filesystem::temp_directory_path() /
             ("qkvlab-test-" + std::to_string(random()) + std::to_string(random()));
    std::filesystem::create_directories(m_path);
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
}

void writeRawSafetensors(const std::filesystem::path& file, const std::string& header,
                         const std::vector<std::uint8_t>& data) {
    std::ofstream out(file, std::ios::binary);
    std::uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xFF));
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(reinterpret_cast<const char*>(data.data()),
              static_cast<std::streamsize>(data.size()));
    if (!out) throw std::runtime_error("cannot write " + file.string());
}

void writeSafetensors(const std::filesystem::path& file,
                      const std::map<std::string, FixtureTensor>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    std::vector<std::uint8_t> data;
    for (const auto& [name, tensor] : tensors) {
        const size_t begin = data.size();
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(tensor.values.data());
        data.insert(data.end(), bytes, bytes + tensor.values.size() * sizeof(float));
        header[name] = {
            {"dtype", "F32"}, {"shape", tensor.shape}, {"data_offsets", {begin, data.size()}}};
    }
    std::string text = header.dump();
    text.resize((text.size() + 7) / 8 * 8, ' ');  // keep the data 8-byte aligned
    writeRawSafetensors(file, text, data);
}

void writeText(const std::filesystem::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + file.string());
}

std::string openingError(const std::filesystem::path& dir) {
    try {
        Model::open(dir);
    } catch (const Error& e) {
        return e.what();
    }
    return "(opened)";
}

namespace {

class RandomTensors {
  public:
    explicit RandomTensors(unsigned seed) : m_engine(seed) {}
    FixtureTensor normal(std::vector<std::int64_t> shape, float stddev, float mean = 0.0f) {
        std::normal_distribution<float> dist(mean, stddev);
        FixtureTensor t{shape, {}};
        std::int64_t n = 1;
        for (auto d : shape) n *= d;
        t.values.resize(static_cast<size_t>(n));
        for (auto& v : t.values) v = dist(m_engine);
        return t;
    }

  private:
    std::mt19937 m_engine;
};

// Query and key weights are scaled up so attention patterns are peaky and tests sensitive.
constexpr float kWeight = 0.2f;
constexpr float kQueryKeyWeight = 0.6f;

// BART's and OPT's modules (fairseq's names): Linear layers and LayerNorms with biases, and
// attention blocks of q/k/v/out_proj, drawn from `r` into `t`.
struct FairseqLayers {
    RandomTensors& r;
    std::map<std::string, FixtureTensor>& t;
    std::int64_t d;

    void linear(const std::string& name, std::int64_t in, std::int64_t out, float stddev) const {
        t[name + ".weight"] = r.normal({out, in}, stddev);
        t[name + ".bias"] = r.normal({out}, 0.1f);
    }
    void norm(const std::string& name) const {
        t[name + ".weight"] = r.normal({d}, 0.1f, 1.0f);
        t[name + ".bias"] = r.normal({d}, 0.1f);
    }
    void attention(const std::string& p) const {
        linear(p + "q_proj", d, d, kQueryKeyWeight);
        linear(p + "k_proj", d, d, kQueryKeyWeight);
        linear(p + "v_proj", d, d, kWeight);
        linear(p + "out_proj", d, d, kWeight);
    }
};

}  // namespace

std::map<std::string, FixtureTensor> tinyGpt2Tensors(const TinyModelSpec& s) {
    RandomTensors r(s.seed);
    const std::int64_t d = s.dModel;
    std::map<std::string, FixtureTensor> t;
    t["wte.weight"] = r.normal({s.vocab, d}, 0.5f);
    t["wpe.weight"] = r.normal({s.context, d}, 0.2f);
    for (int l = 0; l < s.layers; ++l) {
        const std::string p = "h." + std::to_string(l) + ".";
        t[p + "ln_1.weight"] = r.normal({d}, 0.1f, 1.0f);
        t[p + "ln_1.bias"] = r.normal({d}, 0.1f);
        FixtureTensor qkv = r.normal({d, 3 * d}, kWeight);
        for (std::int64_t i = 0; i < d; ++i)
            for (std::int64_t j = 0; j < 2 * d; ++j)
                qkv.values[i * 3 * d + j] *= kQueryKeyWeight / kWeight;
        t[p + "attn.c_attn.weight"] = qkv;
        t[p + "attn.c_attn.bias"] = r.normal({3 * d}, 0.1f);
        t[p + "attn.c_proj.weight"] = r.normal({d, d}, kWeight);
        t[p + "attn.c_proj.bias"] = r.normal({d}, 0.1f);
        t[p + "ln_2.weight"] = r.normal({d}, 0.1f, 1.0f);
        t[p + "ln_2.bias"] = r.normal({d}, 0.1f);
        t[p + "mlp.c_fc.weight"] = r.normal({d, 4 * d}, kWeight);
        t[p + "mlp.c_fc.bias"] = r.normal({4 * d}, 0.1f);
        t[p + "mlp.c_proj.weight"] = r.normal({4 * d, d}, kWeight);
        t[p + "mlp.c_proj.bias"] = r.normal({d}, 0.1f);
    }
    t["ln_f.weight"] = r.normal({d}, 0.1f, 1.0f);
    t["ln_f.bias"] = r.normal({d}, 0.1f);
    return t;
}

void writeTinyGpt2(const std::filesystem::path& dir, const TinyModelSpec& s) {
    std::filesystem::create_directories(dir);
    writeSafetensors(dir / "model.safetensors", tinyGpt2Tensors(s));
    writeText(dir / "config.json", nlohmann::json{{"model_type", "gpt2"},
                                                  {"n_layer", s.layers},
                                                  {"n_head", s.heads},
                                                  {"n_embd", s.dModel},
                                                  {"n_positions", s.context},
                                                  {"vocab_size", s.vocab}}
                                       .dump());
}

void writeTinyBert(const std::filesystem::path& dir, const TinyModelSpec& s) {
    RandomTensors r(s.seed);
    const std::int64_t d = s.dModel;
    std::map<std::string, FixtureTensor> t;
    const std::string e = "bert.embeddings.";
    t[e + "word_embeddings.weight"] = r.normal({s.vocab, d}, 0.5f);
    t[e + "position_embeddings.weight"] = r.normal({s.context, d}, 0.2f);
    t[e + "token_type_embeddings.weight"] = r.normal({2, d}, 0.2f);
    // Legacy gamma/beta names, as the Hub's bert-base-uncased file has them.
    t[e + "LayerNorm.gamma"] = r.normal({d}, 0.1f, 1.0f);
    t[e + "LayerNorm.beta"] = r.normal({d}, 0.1f);
    for (int l = 0; l < s.layers; ++l) {
        const std::string p = "bert.encoder.layer." + std::to_string(l) + ".";
        for (const char* m : {"query", "key", "value"}) {
            const float scale = std::string(m) == "value" ? kWeight : kQueryKeyWeight;
            t[p + "attention.self." + m + ".weight"] = r.normal({d, d}, scale);
            t[p + "attention.self." + m + ".bias"] = r.normal({d}, 0.1f);
        }
        t[p + "attention.output.dense.weight"] = r.normal({d, d}, kWeight);
        t[p + "attention.output.dense.bias"] = r.normal({d}, 0.1f);
        t[p + "attention.output.LayerNorm.weight"] = r.normal({d}, 0.1f, 1.0f);
        t[p + "attention.output.LayerNorm.bias"] = r.normal({d}, 0.1f);
        t[p + "intermediate.dense.weight"] = r.normal({4 * d, d}, kWeight);
        t[p + "intermediate.dense.bias"] = r.normal({4 * d}, 0.1f);
        t[p + "output.dense.weight"] = r.normal({d, 4 * d}, kWeight);
        t[p + "output.dense.bias"] = r.normal({d}, 0.1f);
        t[p + "output.LayerNorm.weight"] = r.normal({d}, 0.1f, 1.0f);
        t[p + "output.LayerNorm.bias"] = r.normal({d}, 0.1f);
    }
    std::filesystem::create_directories(dir);
    writeSafetensors(dir / "model.safetensors", t);
    writeText(dir / "config.json", nlohmann::json{{"model_type", "bert"},
                                                  {"num_hidden_layers", s.layers},
                                                  {"num_attention_heads", s.heads},
                                                  {"hidden_size", s.dModel},
                                                  {"intermediate_size", 4 * s.dModel},
                                                  {"max_position_embeddings", s.context},
                                                  {"vocab_size", s.vocab}}
                                       .dump());
}

void writeTinyLlama(const std::filesystem::path& dir, const TinyModelSpec& s) {
    RandomTensors r(s.seed);
    const std::int64_t d = s.dModel;
    const std::int64_t dk = d / s.heads;
    std::map<std::string, FixtureTensor> t;
    t["model.embed_tokens.weight"] = r.normal({s.vocab, d}, 0.5f);
    for (int l = 0; l < s.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        t[p + "input_layernorm.weight"] = r.normal({d}, 0.1f, 1.0f);
        t[p + "self_attn.q_proj.weight"] = r.normal({s.heads * dk, d}, kQueryKeyWeight);
        t[p + "self_attn.k_proj.weight"] = r.normal({s.kvHeads * dk, d}, kQueryKeyWeight);
        t[p + "self_attn.v_proj.weight"] = r.normal({s.kvHeads * dk, d}, kWeight);
        t[p + "self_attn.o_proj.weight"] = r.normal({d, s.heads * dk}, kWeight);
        t[p + "post_attention_layernorm.weight"] = r.normal({d}, 0.1f, 1.0f);
        t[p + "mlp.gate_proj.weight"] = r.normal({2 * d, d}, kWeight);
        t[p + "mlp.up_proj.weight"] = r.normal({2 * d, d}, kWeight);
        t[p + "mlp.down_proj.weight"] = r.normal({d, 2 * d}, kWeight);
    }
    t["model.norm.weight"] = r.normal({d}, 0.1f, 1.0f);
    std::filesystem::create_directories(dir);
    writeSafetensors(dir / "model.safetensors", t);
    writeText(dir / "config.json", nlohmann::json{{"model_type", "llama"},
                                                  {"num_hidden_layers", s.layers},
                                                  {"num_attention_heads", s.heads},
                                                  {"num_key_value_heads", s.kvHeads},
                                                  {"hidden_size", s.dModel},
                                                  {"intermediate_size", 2 * s.dModel},
                                                  {"max_position_embeddings", s.context},
                                                  {"vocab_size", s.vocab},
                                                  {"tie_word_embeddings", true}}
                                       .dump());
}

std::map<std::string, FixtureTensor> tinyBartTensors(const TinyModelSpec& s) {
    RandomTensors r(s.seed);
    const std::int64_t d = s.dModel;
    std::map<std::string, FixtureTensor> t;
    const FairseqLayers layers{r, t, d};
    t["model.shared.weight"] = r.normal({s.vocab, d}, 0.5f);
    for (const std::string stack : {"encoder", "decoder"}) {
        const std::string p = "model." + stack + ".";
        t[p + "embed_positions.weight"] = r.normal({s.context + 2, d}, 0.5f);
        layers.norm(p + "layernorm_embedding");
        const std::int64_t ff = stack == "encoder" ? 2 * d : 3 * d;
        for (int l = 0; l < s.layers; ++l) {
            const std::string lp = p + "layers." + std::to_string(l) + ".";
            layers.attention(lp + "self_attn.");
            layers.norm(lp + "self_attn_layer_norm");
            if (stack == "decoder") {
                layers.attention(lp + "encoder_attn.");
                layers.norm(lp + "encoder_attn_layer_norm");
            }
            layers.linear(lp + "fc1", d, ff, kWeight);
            layers.linear(lp + "fc2", ff, d, kWeight);
            layers.norm(lp + "final_layer_norm");
        }
    }
    t["final_logits_bias"] = r.normal({1, s.vocab}, 0.1f);
    return t;
}

void writeTinyBart(const std::filesystem::path& dir, const TinyModelSpec& s) {
    std::filesystem::create_directories(dir);
    writeSafetensors(dir / "model.safetensors", tinyBartTensors(s));
    writeText(dir / "config.json", nlohmann::json{{"model_type", "bart"},
                                                  {"d_model", s.dModel},
                                                  {"encoder_layers", s.layers},
                                                  {"decoder_layers", s.layers},
                                                  {"encoder_attention_heads", s.heads},
                                                  {"decoder_attention_heads", s.heads},
                                                  {"encoder_ffn_dim", 2 * s.dModel},
                                                  {"decoder_ffn_dim", 3 * s.dModel},
                                                  {"max_position_embeddings", s.context},
                                                  {"vocab_size", s.vocab},
                                                  {"activation_function", "gelu"},
                                                  {"pad_token_id", 1},
                                                  {"bos_token_id", 0},
                                                  {"eos_token_id", 2},
                                                  {"decoder_start_token_id", 2}}
                                       .dump());
}

std::map<std::string, FixtureTensor> tinyOpt350Tensors(const TinyModelSpec& s) {
    RandomTensors r(s.seed);
    const std::int64_t d = s.dModel, words = s.dModel / 2, ff = 3 * s.dModel;
    std::map<std::string, FixtureTensor> t;
    const FairseqLayers layers{r, t, d};
    const std::string p = "model.decoder.";
    t[p + "embed_tokens.weight"] = r.normal({s.vocab, words}, 0.5f);
    t[p + "embed_positions.weight"] = r.normal({s.context + 2, d}, 0.5f);
    t[p + "project_in.weight"] = r.normal({d, words}, 0.4f);
    t[p + "project_out.weight"] = r.normal({words, d}, 0.4f);
    for (int l = 0; l < s.layers; ++l) {
        const std::string lp = p + "layers." + std::to_string(l) + ".";
        layers.attention(lp + "self_attn.");
        layers.norm(lp + "self_attn_layer_norm");
        layers.linear(lp + "fc1", d, ff, kWeight);
        layers.linear(lp + "fc2", ff, d, kWeight);
        layers.norm(lp + "final_layer_norm");
    }
    return t;
}

void writeTinyOpt350(const std::filesystem::path& dir, const TinyModelSpec& s) {
    std::filesystem::create_directories(dir);
    writeSafetensors(dir / "model.safetensors", tinyOpt350Tensors(s));
    writeText(dir / "config.json", nlohmann::json{{"model_type", "opt"},
                                                  {"hidden_size", s.dModel},
                                                  {"word_embed_proj_dim", s.dModel / 2},
                                                  {"num_hidden_layers", s.layers},
                                                  {"num_attention_heads", s.heads},
                                                  {"ffn_dim", 3 * s.dModel},
                                                  {"max_position_embeddings", s.context},
                                                  {"vocab_size", s.vocab},
                                                  {"activation_function", "relu"},
                                                  {"do_layer_norm_before", false},
                                                  {"pad_token_id", 1},
                                                  {"bos_token_id", 2},
                                                  {"eos_token_id", 2}}
                                       .dump());
}

void writeRounded(const std::filesystem::path& source, Stored dtype,
                  const std::filesystem::path& halfDir, const std::filesystem::path& floatDir) {
    auto store = TensorStore::openFolder(source);
    nlohmann::json header = nlohmann::json::object();
    std::vector<std::uint8_t> data;
    std::map<std::string, test::FixtureTensor> rounded;
    for (const std::string& name : store->names()) {
        const TensorInfo& info = *store->find(name);
        const float* values = store->floats(info);
        test::FixtureTensor& t = rounded[name];
        t.shape = info.shape;
        const size_t begin = data.size();
        for (std::int64_t i = 0; i < info.elementCount(); ++i) {
            const std::uint16_t bits =
                dtype == Stored::F16 ? floatToF16(values[i]) : floatToBf16(values[i]);
            t.values.push_back(dtype == Stored::F16 ? f16ToFloat(bits) : bf16ToFloat(bits));
            data.push_back(bits & 0xFF);
            data.push_back(bits >> 8);
        }
        header[name] = {{"dtype", dtype == Stored::F16 ? "F16" : "BF16"},
                        {"shape", info.shape},
                        {"data_offsets", {begin, data.size()}}};
    }
    for (const auto& dir : {halfDir, floatDir})
        std::filesystem::copy_file(source / "config.json", dir / "config.json");
    test::writeRawSafetensors(halfDir / "model.safetensors", header.dump(), data);
    test::writeSafetensors(floatDir / "model.safetensors", rounded);
}

}  // namespace qkv::test
