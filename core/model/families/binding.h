#pragma once
// Pieces every family's reader and binder share: PyTorch Linear and norm layers, the output
// projection, activation names.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/model/model_family.h"

namespace qkv::families {

// nn.Linear stores [out, in]; the forward reads "in x out". The bias is required when `bias`.
LinearWeights linearLayer(TensorBinder& b, const std::string& module, int in, int out, bool bias);
// Hugging Face's name of a GGUF tensor for a family whose modules are all its own
// (GgufLayout::tensorName): "blk.N.KIND.weight" is "model.layers.N." + layer[KIND] + ".weight",
// "KIND.weight" is top[KIND] + ".weight" (biases alike); a table entry for the whole name
// ("ssm_a", "ssm_dt.bias") gives its Hugging Face name as it is; empty for a name in neither.
std::string ggufModuleName(const std::string& name, const std::map<std::string, std::string>& top,
                           const std::map<std::string, std::string>& layer);
// A column block of a linear layer and of its bias (a slot of a fused projection).
LinearWeights columnsOf(const LinearWeights& w, int first, int count);
NormWeights layerNorm(TensorBinder& b, const std::string& module, int size);  // weight + bias
NormWeights rmsNorm(TensorBinder& b, const std::string& module, int size);    // weight only
// The output projection: the token embedding when the config ties them, else `name`
// ([vocab, d_model]), which an untied checkpoint must carry.
MatrixView outputProjection(TensorBinder& b, const Architecture& c, const std::string& name,
                            const MatrixView& tokenEmbedding);
// A masked-LM head under the given names: dense -> activation -> LayerNorm -> decoder + bias.
// Optional: a checkpoint without `bias` (a bare encoder) has no head and yields no logits.
void bindMaskedLmHead(TensorBinder& b, const Architecture& c, ModelWeights& w,
                      const std::string& dense, const std::string& norm, const std::string& bias,
                      const std::string& decoder);
// Hugging Face activation names (ACT2FN) the forward implements; throws naming the key.
Activation activationNamed(const ConfigReader& r, const char* key, const std::string& fallback);

}  // namespace qkv::families

namespace qkv::families {

// The config.json keys of a model's size; the defaults are the names most Hugging Face configs
// use. Key/value heads are num_key_value_heads (default: heads).
struct ShapeKeys {
    const char* layers = "num_hidden_layers";
    const char* heads = "num_attention_heads";
    const char* dModel = "hidden_size";
    const char* dFF = "intermediate_size";
    const char* context = "max_position_embeddings";
};
void readStandardShape(const ConfigReader& r, Architecture& c, int defaultContext,
                       const ShapeKeys& keys = {});
// readStandardShape plus head_dim, rms_norm_eps and the rotary embedding (rope_theta,
// partial_rotary_factor, rope_scaling or rope_parameters): pre-RMSNorm with rotary positions.
// A dynamic rope scaling extends the context by its factor.
void readRotaryShape(const ConfigReader& r, Architecture& c, int defaultContext, int defaultHeadDim,
                     const ShapeKeys& keys = {});
// The Llama shape most rotary decoders share (keys num_hidden_layers, num_attention_heads,
// num_key_value_heads, hidden_size, intermediate_size, head_dim, rms_norm_eps, rope_theta):
// pre-RMSNorm, rotary, SwiGLU.
void readRotaryDecoder(const ConfigReader& r, Architecture& c, const ShapeKeys& keys = {});
// layer_types (transformers >= 4.53): "full_attention" or "sliding_attention" per layer; absent,
// the kinds are left as they are. Throws naming the key for a wrong length or an unknown type.
void readLayerTypes(const ConfigReader& r, Architecture& c);
// Llama-named attention projections under `p` ("layers.N.self_attn."): q_proj, k_proj, v_proj
// (with biases when `qkvBias`) and o_proj (with a bias when `outputBias`).
void bindLlamaAttention(TensorBinder& b, const Architecture& c, const std::string& p, bool qkvBias,
                        LayerWeights& layer, bool outputBias = false);
// q_norm and k_norm under `p` for the architecture's QK-norm (per head: head_dim wide; whole:
// the projection's width), stored as offsets from one when `unitOffset` (Gemma).
void bindQkNorm(TensorBinder& b, const Architecture& c, const std::string& p, LayerWeights& layer,
                bool unitOffset = false);
// Binds a layer's MLP (or mixture of experts) under its prefix ("layers.N.").
using MlpBinder = std::function<void(const std::string& prefix, int layer, LayerWeights& weights)>;
// A Hub multimodal wrapper (…ForConditionalGeneration) read as its text model: "text_config" by
// `readText`, and the inputs not shown ("image inputs") said for `model` ("Gemma 3"). Where the
// wrapper's output head comes from (tie_word_embeddings) stays the family's.
void readWrappedText(const ConfigReader& r, Architecture& c,
                     void (*readText)(const ConfigReader&, Architecture&), const std::string& model,
                     const std::string& inputs = "image inputs");
// Llama's decoder as its checkpoints hold it (embed_tokens; per layer input_layernorm,
// self_attn, post_attention_layernorm, mlp; norm; lm_head unless tied): Llama, Mistral, Qwen2,
// Qwen3, SmolLM3, and with an MLP of their own Mixtral and Qwen3-MoE. Biases on q/k/v with
// `qkvBias`, on o_proj with `outputBias`; q_norm and k_norm where the architecture has QK-norm.
// `mlp` binds each layer's MLP (default: bindGatedMlp under "mlp.").
ModelWeights bindLlamaDecoder(TensorBinder& b, const Architecture& c, bool qkvBias,
                              bool outputBias = false, const MlpBinder& mlp = {});
// DeepSeek's decoder with multi-head latent attention (also GLM-4.7-Flash's): the shape, norms,
// SwiGLU and the latents' ranks and widths; with `v3` DeepSeek-V3's interleaved rope and YaRN
// mscale² in the softmax scale. Its experts are readRoutedExperts's.
void readLatentDecoder(const ConfigReader& r, Architecture& c, bool v3);
// Its tensors: each layer's latent attention (q_a_proj, q_a_layernorm, q_b_proj or q_proj;
// kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj; o_proj), then its MLP or routed experts as the
// layer's kind says.
ModelWeights bindLatentDecoder(TensorBinder& b, const Architecture& c);
// DeepSeek's mixture of experts (also GLM-4.5's), from layer first_k_dense_replace on:
// n_routed_experts of moe_intermediate_size routed by a softmax (V2: greedy or
// group_limited_greedy) or, with `v3`, by sigmoid scores chosen with e_score_correction_bias
// within the topk_group best of n_group groups, times routed_scaling_factor, beside
// n_shared_experts in one shared MLP. Leaves a config without n_routed_experts dense.
void readRoutedExperts(const ConfigReader& r, Architecture& c, bool v3);
// DeepSeek-V3's latent decoder and experts (readLatentDecoder, readRoutedExperts) whose expert
// layers mlp_layer_types names, "dense" or "sparse" per layer, where a config has it:
// GLM-4.7-Flash, DeepSeek-V3.2, GLM-5.
void readLatentMoeDecoder(const ConfigReader& r, Architecture& c);
// DeepSeek sparse attention's lightning indexer (DeepSeek-V3.2, GLM-5): index_n_heads,
// index_head_dim, index_topk; its rotary pairs interleaved or halves. Every layer has one
// (layer_types "deepseek_sparse_attention"); bindLatentDecoder binds its tensors.
void readKeyIndexer(const ConfigReader& r, Architecture& c, bool interleavedRope);
// The same keys from the metadata llama.cpp's converter writes (expert_count, expert_used_count,
// expert_group_count, leading_dense_block_count, ...; nothing without expert_count).
void ggufRoutedExperts(const GgufModelReader& r, nlohmann::json& c, bool v3);
// Its tensors under `p` ("layers.N.mlp."): experts.E.{gate,up,down}_proj, the gate (with its
// e_score_correction_bias under sigmoid routing) and shared_experts.{gate,up,down}_proj.
void bindRoutedExperts(TensorBinder& b, const Architecture& c, const std::string& p,
                       LayerWeights& layer);
// OLMo 2's decoder (OLMo 3, EXAONE 4): Llama's names without a norm before a sublayer and one
// after it (post_attention_layernorm, post_feedforward_layernorm); q_norm and k_norm of the
// architecture's QK-norm.
ModelWeights bindPostNormDecoder(TensorBinder& b, const Architecture& c);
// Gemma's decoder: Llama's names with four (1 + w) RMSNorms per layer (input, post_attention,
// pre_feedforward, post_feedforward) and q_norm/k_norm where the architecture has QK-norm
// (Gemma 3).
ModelWeights bindGemmaDecoder(TensorBinder& b, const Architecture& c);
// Gemma 2's and 3's GGUF keys beyond a decoder's (gemma2.cpp): `largeLayers` tells the 27B
// model, which llama.cpp scales by d_model / heads.
void readGemmaGguf(const GgufModelReader& r, nlohmann::json& c, std::int64_t largeLayers);
// Mixtral's config from a GGUF file, which the converter writes as Llama with experts
// (mixtral.cpp).
nlohmann::json mixtralGgufConfig(const GgufModelReader& r, std::int64_t vocab, bool tied);
// gate_proj, up_proj, down_proj under `p` ("layers.N.mlp."), biased where c.mlpBias says.
void bindGatedMlp(TensorBinder& b, const Architecture& c, const std::string& p,
                  LayerWeights& layer);
// A mixture of experts' size: `expertsKey` experts (num_local_experts, num_experts) of `width`,
// num_experts_per_tok of them per token (at most the experts).
MixtureOfExperts readExperts(const ConfigReader& r, const char* expertsKey, int width,
                             bool normalizeTopK);
// The names of one expert's gated MLP: Mixtral's w1, w3, w2; Qwen3-MoE's gate_proj, up_proj,
// down_proj.
struct ExpertNames {
    std::string gate, up, down;
};
// A mixture of experts under `p`: the router `p + "gate"` ([experts, d_model], no bias) and
// expert e's gated MLP under `p + "experts.e."`, without biases; or, where the file holds them
// fused (Qwen3.5-MoE's Hub layout), experts.gate_up_proj [experts, gate | up, d_model] and
// experts.down_proj [experts, d_model, width].
void bindExperts(TensorBinder& b, const Architecture& c, const std::string& p,
                 const ExpertNames& names, LayerWeights& layer);

}  // namespace qkv::families

namespace qkv::families {

// Binds what a family keeps under a layer's prefix ("h.N.") into that layer's weights.
using LayerPartBinder = std::function<void(const std::string& prefix, LayerWeights& layer)>;

// Calls bindLayer(prefix, layer) for layers 0..layers-1, prefix = layerPrefix + "N.".
std::vector<LayerWeights> bindLayers(const Architecture& c, const std::string& layerPrefix,
                                     const LayerPartBinder& bindLayer);
// The same where what a layer binds depends on its kind: bindLayer(prefix, N, layer).
using IndexedLayerBinder =
    std::function<void(const std::string& prefix, int index, LayerWeights& layer)>;
std::vector<LayerWeights> bindLayersByIndex(const Architecture& c, const std::string& layerPrefix,
                                            const IndexedLayerBinder& bindLayer);
// The decoder stack most Hugging Face families share: embed_tokens, the layers under "layers.N."
// (bindLayer), the final RMSNorm "norm" (stored as 1 + w where `unitOffsetFinalNorm`) and
// lm_head unless the embeddings are tied.
ModelWeights bindDecoderStack(TensorBinder& b, const Architecture& c,
                              const IndexedLayerBinder& bindLayer,
                              bool unitOffsetFinalNorm = false);
// GPT-2's stack as its checkpoints hold it (wte, wpe; per layer ln_1, attn.c_proj, ln_2, mlp;
// ln_f; lm_head unless tied), with `attention` binding each layer's query, key and value.
ModelWeights bindGpt2Stack(TensorBinder& b, const Architecture& c,
                           const LayerPartBinder& attention);

// Module names (under a layer's prefix) of a block's plain Linear layers; an empty name is bound
// by the family itself (a fused projection).
struct LinearNames {
    std::string query, key, value, output;  // d_model -> d_model
    std::string mlpIn, mlpOut;              // d_model -> d_ff -> d_model
};
// Binds the named Linear layers of one block, all with biases when `bias`.
void bindLinears(TensorBinder& b, const Architecture& c, const std::string& p,
                 const LinearNames& names, bool bias, LayerWeights& layer);

}  // namespace qkv::families
