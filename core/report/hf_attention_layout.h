#pragma once
// Where each family keeps W_Q, W_K and W_V in Hugging Face transformers' own modules: the Auto
// class that loads it, the attention module's projection attributes and how a fused one is laid
// out. The one place that knowledge lives for scripts written for transformers; the families'
// readers (core/model/families/) map the same tensors.
#include <optional>
#include <string>

namespace qkv {

enum class HfModelClass { CausalLm, Encoder, Seq2SeqLm };

enum class HfProjectionLayout {
    Separate,       // three Linear modules, weight [out, in]
    FusedColumns,   // GPT-2's Conv1D, weight [in, 3·d]: column blocks Q | K | V
    FusedPerHead,   // GPT-NeoX's Linear, rows per head: q, k, v of head 0, then of head 1, ...
    FusedRowBlocks  // Phi-3's Linear, row blocks Q (heads·d_k) | K (kv·d_k) | V (kv·d_k)
};

struct HfAttentionLayout {
    const char* family;  // Architecture::family
    HfModelClass modelClass;
    HfProjectionLayout layout;
    // Attributes of the attention module: the Q, K, V Linear modules, or the fused one in
    // `query` alone.
    const char* query;
    const char* key;
    const char* value;
};

// The layout of the family a reader named, or nullopt for one this table lacks.
std::optional<HfAttentionLayout> hfAttentionLayout(const std::string& family);

const char* autoClassName(HfModelClass modelClass);

}  // namespace qkv
