#pragma once
// gpt-oss written as llama.cpp's converter writes it (architecture "gpt-oss"): each expert's gate
// and up projections taken apart from the Hub's interleaved gate_up_proj (gate in the even
// columns), every expert matrix stored [out, in] (the Hub's [in, out] transposed) and stacked per
// layer (ffn_gate_exps, ffn_up_exps, ffn_down_exps), their biases split and stacked the same way,
// the sinks as attn_sinks, the router as ffn_gate_inp, the norm before the MLP as
// post_attention_norm, YaRN as rope.scaling.*.
#include <filesystem>

namespace qkv::test {

enum class GgufExperts { Float32, Mxfp4 };  // Mxfp4: ggml's blocks, as the Hub's files convert

// shared/models/gpt_oss-random-tiny (or a folder of its shape, such as its MXFP4 twin) as a file.
void writeGptOssGguf(const std::filesystem::path& folder, const std::filesystem::path& file,
                     GgufExperts experts);

}  // namespace qkv::test
