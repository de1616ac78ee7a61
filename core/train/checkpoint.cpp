#include "core/train/checkpoint.h"

#include <cstring>
#include <nlohmann/json.hpp>

#include "core/io/safetensors_writer.h"
#include "core/util/atomic_file.h"

namespace qkv::train {

void writeConfigJson(const ModelShape& shape, int endOfTextId,
                     const std::filesystem::path& folder) {
    // A full-bilinear head has no W_Q and W_K for GPT-2's c_attn: its folder names a model
    // type of its own, which every reader refuses as unsupported instead of misreading.
    const bool gpt2 = !shape.tying.fullBilinear;
    const nlohmann::ordered_json config = {
        {"architectures", {gpt2 ? "GPT2LMHeadModel" : "QkvLabFullBilinearLMHeadModel"}},
        {"model_type", gpt2 ? "gpt2" : "qkvlab-full-bilinear"},
        {"n_layer", shape.layers},
        {"n_head", shape.heads},
        {"n_embd", shape.dModel},
        {"n_positions", shape.context},
        {"n_ctx", shape.context},
        {"n_inner", shape.dFF()},
        {"vocab_size", shape.vocab},
        {"activation_function", "gelu_new"},
        {"layer_norm_epsilon", 1e-5},
        {"tie_word_embeddings", true},
        {"scale_attn_weights", true},
        {"initializer_range", 0.02},
        {"resid_pdrop", 0.0},
        {"embd_pdrop", 0.0},
        {"attn_pdrop", 0.0},
        {"bos_token_id", endOfTextId},
        {"eos_token_id", endOfTextId},
        {"torch_dtype", "float32"},
        {"qkvlab_attention_tying", shape.tying.name},
    };
    writeFileAtomically(folder / "config.json", config.dump(2) + "\n");
    const nlohmann::ordered_json tokenizer = {
        {"tokenizer_class", "GPT2Tokenizer"}, {"model_max_length", shape.context},
        {"bos_token", "<|endoftext|>"},       {"eos_token", "<|endoftext|>"},
        {"unk_token", "<|endoftext|>"},       {"add_prefix_space", false},
    };
    writeFileAtomically(folder / "tokenizer_config.json", tokenizer.dump(2) + "\n");
}

void fuseAttention(const ModelShape& shape, const ParameterLayout& layout,
                   const std::vector<float>& params, int layer, std::vector<float>& weight,
                   std::vector<float>& bias) {
    const int d = shape.dModel, sources = shape.tying.sources;
    const auto& l = layout.layers[layer];
    weight.assign(static_cast<size_t>(d) * 3 * d, 0.0f);
    bias.assign(3 * static_cast<size_t>(d), 0.0f);
    for (int slot = 0; slot < 3; ++slot) {
        const int source = shape.tying.slotSource[slot];
        for (int r = 0; r < d; ++r)
            std::memcpy(
                weight.data() + static_cast<size_t>(r) * 3 * d + slot * d,
                params.data() + l.attnWeight + static_cast<size_t>(r) * sources * d + source * d,
                sizeof(float) * d);
        std::memcpy(bias.data() + slot * d, params.data() + l.attnBias + source * d,
                    sizeof(float) * d);
    }
}

void writeModelWeights(const ModelShape& shape, const std::vector<float>& params,
                       const std::map<std::string, std::string>& metadata,
                       const std::filesystem::path& folder) {
    const ParameterLayout layout(shape);
    const int d = shape.dModel;
    std::vector<std::vector<float>> fused(2 * shape.layers);
    std::vector<TensorToWrite> tensors;
    const bool fuse = !shape.tying.fullBilinear;  // full-bilinear keeps its sources as they are
    for (const ParameterTensor& t : layout.tensors()) {
        if (fuse && t.name.find(".attn.sources.") != std::string::npos) continue;
        std::vector<std::int64_t> dims{t.rows};
        if (t.cols > 1) dims.push_back(t.cols);
        tensors.push_back({t.name, dims, params.data() + t.offset});
    }
    for (int l = 0; fuse && l < shape.layers; ++l) {
        std::vector<float>& weight = fused[2 * l];
        std::vector<float>& bias = fused[2 * l + 1];
        fuseAttention(shape, layout, params, l, weight, bias);
        const std::string p = "h." + std::to_string(l) + ".attn.c_attn.";
        tensors.push_back({p + "weight", {d, 3 * d}, weight.data()});
        tensors.push_back({p + "bias", {3 * d}, bias.data()});
    }
    std::map<std::string, std::string> header = metadata;
    header["format"] = "pt";
    writeSafetensors(folder / "model.safetensors", tensors, header);
}

}  // namespace qkv::train
