#pragma once
// Pieces every family's reader and binder share: PyTorch Linear and norm layers, the output
// projection, activation names.
#include <string>

#include "core/model/model_family.h"

namespace qkv::families {

// nn.Linear stores [out, in]; the forward reads "in x out". The bias is required when `bias`.
LinearWeights linearLayer(TensorBinder& b, const std::string& module, int in, int out, bool bias);
NormWeights layerNorm(TensorBinder& b, const std::string& module, int size);  // weight + bias
NormWeights rmsNorm(TensorBinder& b, const std::string& module, int size);    // weight only
// The output projection: the token embedding when the config ties them, else `name`
// ([vocab, d_model]), which an untied checkpoint must carry.
MatrixView outputProjection(TensorBinder& b, const ModelConfig& c, const std::string& name,
                            const MatrixView& tokenEmbedding);
// Hugging Face activation names (ACT2FN) the forward implements; throws naming the key.
Activation activationNamed(const ConfigReader& r, const char* key, const std::string& fallback);

}  // namespace qkv::families

namespace qkv::families {

// The keys most Hugging Face configs use: num_hidden_layers, num_attention_heads,
// num_key_value_heads (default: heads), hidden_size, intermediate_size, vocab_size,
// max_position_embeddings.
void readStandardShape(const ConfigReader& r, ModelConfig& c, int defaultContext);
// readStandardShape plus head_dim, rms_norm_eps, rope_theta: pre-RMSNorm with full-head rotary
// positions and no rope_scaling.
void readRotaryShape(const ConfigReader& r, ModelConfig& c, int defaultContext, int defaultHeadDim);
// The Llama shape most rotary decoders share (keys num_hidden_layers, num_attention_heads,
// num_key_value_heads, hidden_size, intermediate_size, head_dim, rms_norm_eps, rope_theta):
// pre-RMSNorm, full-head rotary, SwiGLU, no rope_scaling.
void readRotaryDecoder(const ConfigReader& r, ModelConfig& c);
// Llama-named attention projections under `p` ("layers.N.self_attn."): q_proj, k_proj, v_proj
// (with biases when `qkvBias`) and o_proj.
void bindLlamaAttention(TensorBinder& b, const ModelConfig& c, const std::string& p, bool qkvBias,
                        LayerWeights& layer);
// gate_proj, up_proj, down_proj under `p` ("layers.N.mlp."), without biases.
void bindGatedMlp(TensorBinder& b, const ModelConfig& c, const std::string& p, LayerWeights& layer);

}  // namespace qkv::families
