#pragma once
// Hugging Face's LlamaTokenizer(Fast) replaces tokenizer.json's post-processor when it loads:
// "bos $A eos" with the BOS only where tokenizer_config.json's add_bos_token (default true) and
// the EOS only where its add_eos_token (default false) says. DeepSeek-V3's tokenizer.json adds
// no BOS and relies on this.
#include <filesystem>
#include <nlohmann/json_fwd.hpp>

namespace qkv {

// Rewrites `tokenizerJson`'s post_processor that way when the folder's tokenizer_config.json
// names a Llama tokenizer class; leaves it alone otherwise. Throws qkv::Error naming the file
// for a BOS or EOS it asks for that the vocabulary lacks.
void applyLlamaPostProcessor(nlohmann::json& tokenizerJson, const std::filesystem::path& folder);

}  // namespace qkv
