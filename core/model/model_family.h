#pragma once
// The model families QKV Lab opens. A family is data plus small functions: which config.json
// "model_type" values it accepts, the prefixes its tensor names may carry, a reader that fills
// the architecture-neutral Architecture from config.json, a binder that maps its tensor names
// onto ModelWeights, and how its GGUF files differ. Everything QKV Lab knows of a family is in
// its file in core/model/families/; adding one is that file and one table entry.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/io/config_reader.h"
#include "core/model/architecture.h"
#include "core/model/gguf_model_reader.h"
#include "core/model/gguf_undo.h"
#include "core/model/hf_attention_layout.h"
#include "core/model/model_weights.h"
#include "core/model/tensor_binder.h"
#include "core/tokenize/tokenizer_hints.h"

namespace qkv {

// What llama.cpp's converter writes for a family, where it differs from its Llama files. The
// architecture's family writes the config; the config's model_type family (the same but for
// Mixtral, which the converter writes as "llama") names and lays out the tensors.
struct GgufLayout {
    std::vector<std::string> architectures = {};  // general.architecture values it reads
    // config.json from the metadata (`vocab`: the embedding's rows; `tied`: no output matrix);
    // rotary factor tensors it reads itself it takes out of `tensors`. Null: the keys every
    // decoder shares (ggufDecoderConfig) under the family's name as model_type.
    nlohmann::json (*config)(const GgufModelReader& r, std::int64_t vocab, bool tied,
                             GgufTensors& tensors) = nullptr;
    // Hugging Face's names of layer tensors ("ffn_norm": "pre_feedforward_layernorm") where the
    // family's modules differ from Llama's.
    std::map<std::string, std::string> layerNames = {};
    // A family whose module names are all its own names every tensor (empty: not read).
    std::string (*tensorName)(const std::string& ggufName) = nullptr;
    bool interleavedQk = false;       // W_Q and W_K rows permuted, as Llama's converter does
    bool normsStoredPlusOne = false;  // norm weights kept as 1 + w (Gemma 2 and 3)
    // What else the converter did to a tensor, undone in `t` (named as Hugging Face names it):
    // Mamba-2's A kept as −exp(A_log), Qwen3.5's value heads in llama.cpp's order. `config` is
    // the one `config` wrote; new values are kept in `derived` (gguf_undo.h).
    void (*undo)(const nlohmann::json& config, TensorInfo& t, GgufDerived& derived) = nullptr;
};

struct ModelFamily {
    std::string name;                     // canonical model_type, shown as the architecture
    std::vector<std::string> modelTypes;  // every model_type whose HF code is this family's
    std::vector<std::string> tensorPrefixes;
    void (*read)(const ConfigReader& reader, Architecture& config);
    ModelWeights (*bind)(TensorBinder& binder, const Architecture& config);
    // quantization_config quant_method values whose tensors the binder decodes; others are
    // refused by name.
    std::vector<std::string> quantisations = {};
    GgufLayout gguf = {};
    // How its vocab.json + merges.txt run where tokenizer_config.json does not say.
    TokenizerHints tokenizer = {.style = TokenizerHints::Style::Gpt2};
    // Where transformers keeps its W_Q, W_K, W_V (nullopt: no transformers class computes it).
    std::optional<HfAttentionLayout> transformers = HfAttentionLayout{};
};

const std::vector<ModelFamily>& modelFamilies();
// The family of a model_type, or nullptr.
const ModelFamily* findFamily(const std::string& modelType);
// The family of that name (Architecture::family), or nullptr.
const ModelFamily* findFamilyNamed(const std::string& name);
// "gpt2, bert, ..." for messages and --help.
std::string supportedModelTypes();

// d_model / heads, the head width of families that give none; throws naming `where` when the
// heads do not divide d_model.
int headDimFromWidth(const Architecture& c, const std::string& where);

// config.json text -> description; throws qkv::Error naming `where` and the key at fault, or the
// unsupported model_type.
Architecture parseArchitecture(const std::string& jsonText, const std::string& where);
Architecture loadArchitecture(const std::filesystem::path& configJson);

// The families' readers and binders (core/model/families/*.cpp).
namespace families {
ModelFamily gpt2();
ModelFamily bert();
ModelFamily roberta();
ModelFamily distilbert();
ModelFamily llama();
ModelFamily qwen2();
ModelFamily gemma2();
ModelFamily phi3();
ModelFamily gptNeox();
ModelFamily opt();
ModelFamily marian();
ModelFamily bart();
ModelFamily t5();
ModelFamily qwen3();
ModelFamily qwen3_5();
ModelFamily qwen3_5Multimodal();
ModelFamily qwen3_5Moe();
ModelFamily qwen3_5MoeMultimodal();
ModelFamily qwen3Next();
ModelFamily nemotronH();
ModelFamily graniteMoeHybrid();
ModelFamily lfm2();
ModelFamily falconH1();
ModelFamily gemma3();
ModelFamily gemma3Multimodal();
ModelFamily olmo2();
ModelFamily smollm3();
ModelFamily modernbert();
ModelFamily mixtral();
ModelFamily qwen3Moe();
ModelFamily gptOss();
ModelFamily deepseek();
ModelFamily gemma4();
ModelFamily gemma4Multimodal();
ModelFamily gemma3nText();
ModelFamily gemma3n();
ModelFamily fullBilinear();
ModelFamily seedOss();
ModelFamily ernie4_5();
ModelFamily olmo3();
ModelFamily exaone4();
ModelFamily cohere2();
ModelFamily hunyuanV1Dense();
ModelFamily ministral3();
ModelFamily mistral3Multimodal();
ModelFamily glm4Moe();
ModelFamily glm4MoeLite();
ModelFamily deepseekV32();
ModelFamily glmMoeDsa();
ModelFamily minimaxM2();
ModelFamily llama4();
ModelFamily llama4Multimodal();
ModelFamily apertus();
}  // namespace families

}  // namespace qkv
