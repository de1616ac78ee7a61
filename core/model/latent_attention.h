#pragma once
// Multi-head latent attention (DeepSeek-V2/V3) in the layout every attention kernel reads.
// Per token x the model computes
//   queries          W_UQ norm(W_DQ x), or W_Q x without a query bottleneck: per head [nope | rope]
//   latent, rotary   c = W_DKV x and one rotary key r = W_KR x shared by every head
//   keys and values  W_UKV norm(c): per head [key nope | value]
// and each head attends with query [q_nope | rot(q_rope)] and key [k_nope | rot(r)]. Here each
// head's query and key are gathered to [rope | nope] (the order of a dot product's terms does not
// change it), with the rope dims de-interleaved where the checkpoint stores pairs (2i, 2i+1), so
// the backend's rotate-half rotary on the first ropeDim dims of a head gives the model's q·k.
#include <memory>
#include <vector>

#include "core/model/architecture.h"
#include "core/model/device_model.h"
#include "core/model/w_configuration.h"

namespace qkv {

class LatentProjection {
  public:
    LatentProjection(Backend& backend, const Architecture& config,
                     const DeviceLatentAttention& weights);

    // The slot's projection of x: heads x headDim for queries and keys, heads x valueDim for
    // values. Keys and values of one input share its latent, computed once.
    std::unique_ptr<Tensor> project(Projection projection, const Tensor& x);
    // The normed query latent of x (q_a_layernorm(q_a_proj x)), which the sparse attention's
    // indexer reads; computed once per input.
    const Tensor& queryLatent(const Tensor& x);

  private:
    std::unique_ptr<Tensor> normed(const DeviceNorm& n, std::unique_ptr<Tensor> x) const;
    void computeLatent(const Tensor& x);

    Backend& m_be;
    const Architecture& m_c;
    const DeviceLatentAttention& m_w;
    const Tensor* m_latentOf = nullptr;  // the input m_rotaryKey and m_keyValue belong to
    std::unique_ptr<Tensor> m_rotaryKey, m_keyValue;
    const Tensor* m_queryLatentOf = nullptr;  // the input m_queryLatent belongs to
    std::unique_ptr<Tensor> m_queryLatent;
};

// Where each column of the gathered layout comes from: a head's query from the query
// projection; its key from [rotary key | key-value projection]; its value from the key-value
// projection.
std::vector<int> latentQueryColumns(const Architecture& c);
std::vector<int> latentKeyColumns(const Architecture& c);
std::vector<int> latentValueColumns(const Architecture& c);

}  // namespace qkv
