#include "tests/support/gguf_gpt_oss.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/io/gguf_writer.h"
#include "tests/support/gguf_from_folder.h"
#include "tests/support/mxfp4_fixture.h"

namespace qkv::test {
namespace {

// shared/models/gpt_oss-random-tiny's config.json: 2 layers (sliding window 4, then full), d_model
// 64, 4 heads of 16, 2 key/value heads, 4 experts of width 64, 2 per token, YaRN ×32 from 4096.
constexpr int kLayers = 2, kWidth = 64, kExperts = 4, kExpertWidth = 64;
constexpr std::uint32_t kGgmlMxfp4 = 39;

// How a stacked expert matrix (ggml shape [in, out, experts], values row by row) is stored.
using ExpertWriter =
    std::function<void(GgufWriter&, const std::string& name, const std::vector<std::uint64_t>& ne,
                       const std::vector<float>& values)>;

void asFloat32(GgufWriter& gguf, const std::string& name, const std::vector<std::uint64_t>& ne,
               const std::vector<float>& values) {
    gguf.addTensor(name, ne, values);
}

// ggml's MXFP4 block: the E8M0 scale, then element j in byte j's low nibble and j + 16 in its
// high nibble; blocks are quantised by the independent OCP quantiser of tests/support.
void asMxfp4(GgufWriter& gguf, const std::string& name, const std::vector<std::uint64_t>& ne,
             const std::vector<float>& values) {
    std::vector<std::uint8_t> bytes;
    for (std::size_t first = 0; first < values.size(); first += 32) {
        const Mxfp4Block block = quantiseMxfp4Block(values.data() + first);
        std::uint8_t packed[17] = {block.scale};
        for (int j = 0; j < 32; ++j) {  // the Hub packs elements 2b and 2b + 1 into byte b
            const int code = block.bytes[j / 2] >> (4 * (j % 2)) & 15;
            packed[1 + j % 16] |= static_cast<std::uint8_t>(code << (j < 16 ? 0 : 4));
        }
        bytes.insert(bytes.end(), packed, packed + 17);
    }
    gguf.addRawTensor(name, ne, kGgmlMxfp4, std::move(bytes));
}

// Rows `parity`, `parity` + 2, ... of each expert's [in, out] matrix `m`, transposed: [out/2, in].
std::vector<float> transposedColumns(const std::vector<float>& m, int in, int out, int step,
                                     int parity) {
    std::vector<float> t;
    for (int e = 0; e < kExperts; ++e)
        for (int o = parity; o < out; o += step)
            for (int i = 0; i < in; ++i)
                t.push_back(m[(static_cast<std::size_t>(e) * in + i) * out + o]);
    return t;
}

std::vector<float> everyOther(const std::vector<float>& v, int parity) {
    std::vector<float> out;
    for (std::size_t i = parity; i < v.size(); i += 2) out.push_back(v[i]);
    return out;
}

}  // namespace

void writeGptOssGguf(const std::filesystem::path& folder, const std::filesystem::path& file,
                     GgufExperts experts) {
    const ExpertWriter addExperts = experts == GgufExperts::Mxfp4 ? asMxfp4 : asFloat32;
    GgufFromFolder converted(folder);
    converted.describe({.arch = "gpt-oss",
                        .layers = kLayers,
                        .feedForward = kExpertWidth,
                        .ropeBase = 150000.0f,
                        .normEps = 1e-5f,
                        .context = 131072});
    GgufWriter& gguf = converted.gguf();
    const std::string a = "gpt-oss.";
    gguf.addUint32(a + "attention.key_length", 16);
    gguf.addUint32(a + "attention.value_length", 16);
    gguf.addUint32(a + "attention.sliding_window", 4);
    gguf.addUint32(a + "expert_count", kExperts);
    gguf.addUint32(a + "expert_used_count", 2);
    gguf.addUint32(a + "expert_feed_forward_length", kExpertWidth);
    gguf.addString(a + "rope.scaling.type", "yarn");
    gguf.addFloat32(a + "rope.scaling.factor", 32.0f);
    gguf.addUint32(a + "rope.scaling.original_context_length", 4096);
    gguf.addFloat32(a + "rope.scaling.yarn_beta_fast", 32.0f);
    gguf.addFloat32(a + "rope.scaling.yarn_beta_slow", 1.0f);
    converted.addEmbeddingsAndHead(true);
    const auto u = [](int n) { return static_cast<std::uint64_t>(n); };
    for (int l = 0; l < kLayers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        const std::string hf = "model.layers." + std::to_string(l) + ".";
        converted.add(blk + "attn_norm.weight", hf + "input_layernorm.weight");
        converted.add(blk + "post_attention_norm.weight", hf + "post_attention_layernorm.weight");
        for (const auto& [ours, theirs] : {std::pair{"attn_q", "q_proj"},
                                           {"attn_k", "k_proj"},
                                           {"attn_v", "v_proj"},
                                           {"attn_output", "o_proj"}})
            for (const std::string part : {".weight", ".bias"})
                converted.add(blk + ours + part, hf + "self_attn." + theirs + part);
        converted.add(blk + "attn_sinks.weight", hf + "self_attn.sinks");
        converted.add(blk + "ffn_gate_inp.weight", hf + "mlp.router.weight");
        converted.add(blk + "ffn_gate_inp.bias", hf + "mlp.router.bias");
        const std::string experts = hf + "mlp.experts.";
        const std::vector<float> gateUp = converted.values(experts + "gate_up_proj");
        const std::vector<float> down = converted.values(experts + "down_proj");
        const std::vector<float> gateUpBias = converted.values(experts + "gate_up_proj_bias");
        const std::vector<std::uint64_t> in = {u(kWidth), u(kExpertWidth), u(kExperts)};
        addExperts(gguf, blk + "ffn_gate_exps.weight", in,
                   transposedColumns(gateUp, kWidth, 2 * kExpertWidth, 2, 0));
        addExperts(gguf, blk + "ffn_up_exps.weight", in,
                   transposedColumns(gateUp, kWidth, 2 * kExpertWidth, 2, 1));
        addExperts(gguf, blk + "ffn_down_exps.weight", {u(kExpertWidth), u(kWidth), u(kExperts)},
                   transposedColumns(down, kExpertWidth, kWidth, 1, 0));
        gguf.addTensor(blk + "ffn_gate_exps.bias", {u(kExpertWidth), u(kExperts)},
                       everyOther(gateUpBias, 0));
        gguf.addTensor(blk + "ffn_up_exps.bias", {u(kExpertWidth), u(kExperts)},
                       everyOther(gateUpBias, 1));
        converted.add(blk + "ffn_down_exps.bias", experts + "down_proj_bias");
    }
    converted.write(file);
}

}  // namespace qkv::test
