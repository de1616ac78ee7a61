#pragma once
// The architecture description of a checkpoint, read from its config.json (Hugging Face keys:
// GPT-2's n_embd/n_head/n_layer, BERT's hidden_size/num_attention_heads/..., Llama's
// num_key_value_heads/rope_theta/rms_norm_eps/head_dim).
#include <cstdint>
#include <filesystem>
#include <string>

namespace qkv {

enum class Architecture { Gpt2, Bert, Llama };
enum class NormKind { LayerNorm, RmsNorm };
enum class Activation { GeluTanh, GeluExact, Relu, SwiGlu };

const char* architectureName(Architecture arch);

struct ModelConfig {
    Architecture architecture = Architecture::Gpt2;
    std::string modelType;  // config.json "model_type" as written
    int layers = 0;
    int heads = 0;    // query heads
    int kvHeads = 0;  // key/value heads (= heads unless grouped-query attention)
    int dModel = 0;
    int headDim = 0;  // d_k
    int dFF = 0;      // MLP hidden width
    int vocabSize = 0;
    int contextLength = 0;  // maximum positions
    int typeVocabSize = 0;  // BERT token types
    NormKind norm = NormKind::LayerNorm;
    bool preNorm = true;  // GPT-2, Llama: norm before each block; BERT: after the residual
    bool causal = true;
    bool learnedPositions = true;  // false: rotary embeddings
    Activation activation = Activation::GeluTanh;
    float normEps = 1e-5f;
    float ropeTheta = 10000.0f;
    bool tiedEmbeddings = true;  // output projection = token embedding matrix

    int kvGroup() const { return heads / kvHeads; }  // query heads per key/value head
};

ModelConfig parseModelConfig(const std::string& jsonText, const std::string& where);
ModelConfig loadModelConfig(const std::filesystem::path& configJson);  // throws qkv::Error

}  // namespace qkv
