#include "core/model/model_family.h"

#include <algorithm>

#include "core/format/fp8.h"
#include "core/util/error.h"
#include "core/util/mapped_file.h"

namespace qkv {
namespace {

// config.json files are kilobytes; a limit keeps a hostile one from exhausting memory.
constexpr std::size_t kMaxConfigBytes = 16u << 20;

// Checks every family shares: widths that fit, heads that divide, positions that rotate.
void validate(Architecture& c, const std::string& where) {
    if (c.headDim == 0) c.headDim = headDimFromWidth(c, where);
    if (c.layerKinds.empty()) c.layerKinds.assign(c.layers, LayerKind{c.slidingWindow > 0, true});
    if (c.positions == Positions::Rotary) {
        if (c.rotary.dims == 0) c.rotary.dims = c.headDim;
        if (c.rotary.context == 0) c.rotary.context = c.contextLength;
    }
    // Each layer's heads, where they differ (Gemma 4; a hybrid's linear and Mamba-2 layers).
    for (int l = 0; l < c.layers; ++l) {
        const int heads = c.headsOf(l), headDim = c.headDimOf(l), kvHeads = c.kvHeadsOf(l);
        if (heads == 0) continue;  // an MLP block or a short convolution
        if (static_cast<std::int64_t>(heads) * headDim > ConfigReader::kMaxWidth)
            throw Error(where + ": " + std::to_string(heads) + " heads of " +
                        std::to_string(headDim) + " dimensions exceed the " +
                        std::to_string(ConfigReader::kMaxWidth) +
                        " attention width QKV Lab supports");
        if (heads % kvHeads != 0)
            throw Error(where + ": " + std::to_string(heads) + " query heads are not a " +
                        "multiple of " + std::to_string(kvHeads) + " key/value heads");
        if (const Rotary* r = c.rotaryOf(l); r && (r->dims < 2 || r->dims > headDim || r->dims % 2))
            throw Error(where +
                        ": rotary embeddings need an even number of rotated dimensions "
                        "(at most the head dimension " +
                        std::to_string(headDim) + ")");
    }
    if (c.slidingWindow == 0)  // a layer type without a window to use is a global layer
        for (LayerKind& kind : c.layerKinds) kind.local = false;
    if (static_cast<int>(c.layerKinds.size()) != c.layers)
        throw Error(where + ": internal error: layer kinds for " +
                    std::to_string(c.layerKinds.size()) + " of " + std::to_string(c.layers) +
                    " layers");
    for (const LayerKind& kind : c.layerKinds)
        if (kind.experts &&
            !(c.moe.perToken > 0 && c.moe.perToken <= c.moe.experts && c.moe.width > 0))
            throw Error(where + ": internal error: a layer of experts without their size");
}

// The Hub's FP8 (fp8.h) in the layout decoded: e4m3 weights with 128 x 128 block scales, as
// DeepSeek-V3 and every "-FP8" release since store them. Other FP8 layouts are refused by name.
void checkFp8Layout(const ConfigReader& q) {
    const std::string format = q.stringOr("fmt", "e4m3");
    if (format != "e4m3" && format != "float8_e4m3fn")
        q.fail("FP8 weights in format \"" + format +
               "\" are not supported (only e4m3 with 128 x 128 block scales)");
    // Static activation scales come with one weight scale per tensor (Mistral's FP8 releases).
    const std::string activations = q.stringOr("activation_scheme", "dynamic");
    if (activations != "dynamic")
        q.fail("FP8 weights with \"" + activations +
               "\" activation scales are not supported (only the block-scaled layout with "
               "dynamic activations)");
    if (!q.has("weight_block_size")) return;  // transformers' default: 128 x 128
    const std::vector<int> block = q.integers("weight_block_size");
    if (block != std::vector<int>{kFp8BlockSide, kFp8BlockSide}) {
        std::string sides;
        for (int side : block) sides += (sides.empty() ? "" : " x ") + std::to_string(side);
        q.fail("FP8 weights in blocks of " + sides +
               " are not supported (only 128 x 128, the Hub's FP8 layout)");
    }
}

}  // namespace

int headDimFromWidth(const Architecture& c, const std::string& where) {
    if (c.dModel % c.heads != 0)
        throw Error(where + ": hidden size " + std::to_string(c.dModel) + " is not divisible by " +
                    std::to_string(c.heads) + " heads");
    return c.dModel / c.heads;
}

const std::vector<ModelFamily>& modelFamilies() {
    static const std::vector<ModelFamily> all = {
        families::gpt2(),
        families::bert(),
        families::roberta(),
        families::distilbert(),
        families::llama(),
        families::qwen2(),
        families::gemma2(),
        families::phi3(),
        families::gptNeox(),
        families::opt(),
        families::marian(),
        families::bart(),
        families::t5(),
        families::qwen3(),
        families::gemma3(),
        families::gemma3Multimodal(),
        families::olmo2(),
        families::smollm3(),
        families::modernbert(),
        families::mixtral(),
        families::qwen3Moe(),
        families::gptOss(),
        families::deepseek(),
        families::gemma4(),
        families::gemma4Multimodal(),
        families::gemma3nText(),
        families::gemma3n(),
        families::qwen3_5(),
        families::qwen3_5Multimodal(),
        families::qwen3_5Moe(),
        families::qwen3_5MoeMultimodal(),
        families::qwen3Next(),
        families::nemotronH(),
        families::graniteMoeHybrid(),
        families::lfm2(),
        families::falconH1(),
        families::fullBilinear(),
        families::seedOss(),
        families::ernie4_5(),
        families::olmo3(),
        families::exaone4(),
        families::cohere2(),
        families::hunyuanV1Dense(),
        families::ministral3(),
        families::mistral3Multimodal(),
        families::glm4Moe(),
        families::glm4MoeLite(),
        families::deepseekV32(),
        families::glmMoeDsa(),
        families::minimaxM2(),
        families::llama4(),
        families::llama4Multimodal(),
        families::apertus(),
    };
    return all;
}

const ModelFamily* findFamily(const std::string& modelType) {
    for (const ModelFamily& f : modelFamilies())
        if (std::find(f.modelTypes.begin(), f.modelTypes.end(), modelType) != f.modelTypes.end())
            return &f;
    return nullptr;
}

const ModelFamily* findFamilyNamed(const std::string& name) {
    for (const ModelFamily& f : modelFamilies())
        if (f.name == name) return &f;
    return nullptr;
}

std::string supportedModelTypes() {
    std::string list;
    for (const ModelFamily& f : modelFamilies())
        for (const std::string& type : f.modelTypes) list += (list.empty() ? "" : ", ") + type;
    return list;
}

Architecture parseArchitecture(const std::string& jsonText, const std::string& where) {
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(withNonFiniteFloatsSpelled(jsonText));
    } catch (const nlohmann::json::exception& e) {
        throw Error(where + ": not valid JSON (" + e.what() + ")");
    }
    if (!doc.is_object()) throw Error(where + ": not a JSON object");
    const ConfigReader reader(doc, where);
    Architecture config;
    config.modelType = reader.stringOr("model_type", "");
    const ModelFamily* family = findFamily(config.modelType);
    if (!family)
        throw Error(where + ": unsupported architecture \"" +
                    (config.modelType.empty() ? std::string("(no model_type)") : config.modelType) +
                    "\"; supported model_type values: " + supportedModelTypes());
    config.family = family->name;
    // Quantised weights (GPTQ, AWQ...) are packed integers and scales that no reader decodes:
    // refused by name before any tensor is looked at. gpt-oss's MXFP4 experts and the Hub's FP8
    // weights are decoded (TensorBinder::stackedMatrix, TensorBinder::matrix).
    if (const auto quantised = reader.object("quantization_config")) {
        const std::string method = quantised->stringOr("quant_method", "unnamed");
        const auto& known = family->quantisations;
        if (std::find(known.begin(), known.end(), method) == known.end())
            reader.fail("weights quantised as \"" + method +
                        "\" (quantization_config) are not supported yet; a checkpoint with "
                        "unquantised (bf16, f16 or f32) weights opens");
        if (method == "fp8") checkFp8Layout(*quantised);
        config.quantisation = method;
    }
    family->read(reader, config);
    validate(config, where);
    return config;
}

Architecture loadArchitecture(const std::filesystem::path& configJson) {
    std::error_code ec;
    if (!std::filesystem::exists(configJson, ec))
        throw Error(configJson.string() + ": cannot read (missing config.json?)");
    const MappedFile file(configJson);
    if (file.size() > kMaxConfigBytes)
        throw Error(configJson.string() + ": " + std::to_string(file.size()) +
                    " bytes exceeds the " + std::to_string(kMaxConfigBytes) +
                    "-byte limit for a config.json");
    return parseArchitecture(std::string(reinterpret_cast<const char*>(file.data()), file.size()),
                             configJson.string());
}

}  // namespace qkv
