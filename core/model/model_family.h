#pragma once
// The model families QKV Lab opens. A family is data plus two small functions: which config.json
// "model_type" values it accepts, the prefixes its tensor names may carry, a reader that fills
// the architecture-neutral Architecture from config.json and a binder that maps its tensor names
// onto ModelWeights. Adding a family is one file in core/model/families/ and one table entry.
#include <filesystem>
#include <string>
#include <vector>

#include "core/io/config_reader.h"
#include "core/model/architecture.h"
#include "core/model/model_weights.h"
#include "core/model/tensor_binder.h"

namespace qkv {

struct ModelFamily {
    std::string name;                     // canonical model_type, shown as the architecture
    std::vector<std::string> modelTypes;  // every model_type whose HF code is this family's
    std::vector<std::string> tensorPrefixes;
    void (*read)(const ConfigReader& reader, Architecture& config);
    ModelWeights (*bind)(TensorBinder& binder, const Architecture& config);
    // quantization_config quant_method values whose tensors the binder decodes; others are
    // refused by name.
    std::vector<std::string> quantisations = {};
};

const std::vector<ModelFamily>& modelFamilies();
// The family of a model_type, or nullptr.
const ModelFamily* findFamily(const std::string& modelType);
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
ModelFamily fullBilinear();
}  // namespace families

}  // namespace qkv
