#include "core/report/hf_attention_layout.h"

#include <string_view>

namespace qkv {
namespace {

using C = HfModelClass;
using L = HfProjectionLayout;

// One row per reader in core/model/families/. Llama's row serves Mistral too, RoBERTa's
// XLM-RoBERTa and CamemBERT, T5's mT5: their modules have the same names.
constexpr HfAttentionLayout kLayouts[] = {
    {"gpt2", C::CausalLm, L::FusedColumns, "c_attn", "", ""},
    {"gpt_neox", C::CausalLm, L::FusedPerHead, "query_key_value", "", ""},
    {"phi3", C::CausalLm, L::FusedRowBlocks, "qkv_proj", "", ""},
    {"llama", C::CausalLm, L::Separate, "q_proj", "k_proj", "v_proj"},
    {"qwen2", C::CausalLm, L::Separate, "q_proj", "k_proj", "v_proj"},
    {"gemma2", C::CausalLm, L::Separate, "q_proj", "k_proj", "v_proj"},
    {"qwen3", C::CausalLm, L::Separate, "q_proj", "k_proj", "v_proj"},
    {"gemma3_text", C::CausalLm, L::Separate, "q_proj", "k_proj", "v_proj"},
    {"gemma3", C::CausalLm, L::Separate, "q_proj", "k_proj", "v_proj"},
    // Gemma 4's global layers have no v_proj: any copy is refused (python_tying.cpp).
    {"gemma4_text", C::CausalLm, L::Separate, "q_proj", "k_proj", "v_proj"},
    {"gemma4", C::CausalLm, L::Separate, "q_proj", "k_proj", "v_proj"},
    {"olmo2", C::CausalLm, L::Separate, "q_proj", "k_proj", "v_proj"},
    {"smollm3", C::CausalLm, L::Separate, "q_proj", "k_proj", "v_proj"},
    {"mixtral", C::CausalLm, L::Separate, "q_proj", "k_proj", "v_proj"},
    {"qwen3_moe", C::CausalLm, L::Separate, "q_proj", "k_proj", "v_proj"},
    {"gpt_oss", C::CausalLm, L::Separate, "q_proj", "k_proj", "v_proj"},
    {"deepseek", C::CausalLm, L::Separate, "kv_b_proj", "", ""},  // learned only (no tying)
    {"modernbert", C::Encoder, L::FusedRowBlocks, "Wqkv", "", ""},
    {"opt", C::CausalLm, L::Separate, "q_proj", "k_proj", "v_proj"},
    {"bert", C::Encoder, L::Separate, "query", "key", "value"},
    {"roberta", C::Encoder, L::Separate, "query", "key", "value"},
    {"distilbert", C::Encoder, L::Separate, "q_lin", "k_lin", "v_lin"},
    {"bart", C::Seq2SeqLm, L::Separate, "q_proj", "k_proj", "v_proj"},
    {"marian", C::Seq2SeqLm, L::Separate, "q_proj", "k_proj", "v_proj"},
    {"t5", C::Seq2SeqLm, L::Separate, "q", "k", "v"},
};

}  // namespace

std::optional<HfAttentionLayout> hfAttentionLayout(const std::string& family) {
    for (const HfAttentionLayout& layout : kLayouts)
        if (std::string_view(layout.family) == family) return layout;
    return std::nullopt;
}

const char* autoClassName(HfModelClass modelClass) {
    switch (modelClass) {
        case C::CausalLm:
            return "AutoModelForCausalLM";
        case C::Encoder:
            return "AutoModel";
        case C::Seq2SeqLm:
            return "AutoModelForSeq2SeqLM";
    }
    return "AutoModel";
}

}  // namespace qkv
