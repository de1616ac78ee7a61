#pragma once
// Where a family keeps W_Q, W_K and W_V in Hugging Face transformers' own modules: the Auto class
// that loads it, the attention module's projection attributes and how a fused one is laid out,
// for scripts written for transformers. Each family says its own (ModelFamily::transformers); the
// families' readers map the same tensors.
namespace qkv {

enum class HfModelClass { CausalLm, Encoder, Seq2SeqLm };

enum class HfProjectionLayout {
    Separate,       // three Linear modules, weight [out, in]
    FusedColumns,   // GPT-2's Conv1D, weight [in, 3·d]: column blocks Q | K | V
    FusedPerHead,   // GPT-NeoX's Linear, rows per head: q, k, v of head 0, then of head 1, ...
    FusedRowBlocks  // Phi-3's Linear, row blocks Q (heads·d_k) | K (kv·d_k) | V (kv·d_k)
};

// The default is a causal LM's q_proj, k_proj and v_proj, which most decoders have.
struct HfAttentionLayout {
    HfModelClass modelClass = HfModelClass::CausalLm;
    HfProjectionLayout layout = HfProjectionLayout::Separate;
    // Attributes of the attention module: the Q, K, V Linear modules, or the fused one in
    // `query` alone.
    const char* query = "q_proj";
    const char* key = "k_proj";
    const char* value = "v_proj";
};

const char* autoClassName(HfModelClass modelClass);

}  // namespace qkv
