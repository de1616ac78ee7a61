#pragma once
// What Qwen3.5 (qwen3_5.cpp) and Qwen3-Next (qwen3_next.cpp) share: Gated DeltaNet layers beside
// gated full attention, (1 + w) RMSNorms around each sublayer, and a mixture of experts whose
// shared MLP is gated per token. They differ in how the linear layers' projections are stored.
#include "core/model/families/binding.h"

namespace qkv::families {

// The attention and Gated DeltaNet shape (QK-norm per head, output gate, linear_* keys, layer
// types from layer_types or full_attention_interval). Throws naming the key for value heads not
// a multiple of key heads or layer_types of the wrong length. `keys` names the MLP's width
// (Qwen3.5-MoE has only moe_intermediate_size).
void readGatedDeltaNetHybrid(const ConfigReader& r, Architecture& c, const ShapeKeys& keys = {});

// The experts (num_experts of moe_intermediate_size, num_experts_per_tok) and the per-token
// gated shared MLP (shared_expert_intermediate_size).
void readGatedSharedExperts(const ConfigReader& r, Architecture& c, bool normalizeTopK);

NormWeights unitOffsetNorm(TensorBinder& b, const std::string& module, int size);

// Gated attention under `p` ("layers.N.self_attn."): q_proj's rows per head [query | gate].
void bindGatedAttention(TensorBinder& b, const Architecture& c, const std::string& p,
                        LayerWeights& layer);

// A Gated DeltaNet layer's parts beside its projections (query, key, value, z, b and a, which
// the family binds): conv1d's taps, whose channels are [q of every key head | k | v of every
// value head] in every family, A_log, dt_bias, the gated norm and out_proj.
void bindDeltaNetCore(TensorBinder& b, const Architecture& model, int l, const std::string& p,
                      LayerWeights& layer);

// A family's binding of a linear layer's query, key, value, z, b and a under `p`
// ("layers.N.linear_attn."), before bindDeltaNetCore.
using DeltaNetProjectionBinder = void (*)(TensorBinder& b, const Architecture& c,
                                          const std::string& p, LayerWeights& layer);

// The decoder stack both families keep under "model.": per layer input_layernorm, linear_attn
// (its projections bound by `projections`) or self_attn, post_attention_layernorm, and mlp (a
// SwiGLU, or the mixture of bindGatedSharedExperts where the layer has experts); (1 + w) norms.
ModelWeights bindGatedDeltaNetHybrid(TensorBinder& b, const Architecture& c,
                                     DeltaNetProjectionBinder projections);

// The mixture under `p` ("layers.N.mlp."): router, experts (bindExperts' layouts), the shared
// MLP shared_expert.{gate,up,down}_proj and its gate shared_expert_gate.
void bindGatedSharedExperts(TensorBinder& b, const Architecture& c, const std::string& p,
                            LayerWeights& layer);

}  // namespace qkv::families
