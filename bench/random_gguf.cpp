#include "bench/random_gguf.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "core/format/ggml_blocks.h"
#include "core/io/gguf.h"
#include "core/io/gguf_writer.h"
#include "core/util/error.h"

namespace qkv::bench {
namespace {

constexpr std::uint32_t kF32 = 0, kQ8_0 = 8, kQ4K = 12, kQ6K = 14;  // ggml types

// A block type's elements and bytes per block, as the reader decodes them.
BlockFormat formatOf(std::uint32_t ggmlType) { return blockFormat(*elementTypeOfGgml(ggmlType)); }

struct Tensor {
    std::string name;
    std::vector<std::uint64_t> ne;  // ne[0]: the row length
    std::uint32_t type;
    std::uint64_t bytes() const {
        std::uint64_t n = 1;
        for (auto d : ne) n *= d;
        if (type == kF32) return 4 * n;
        const BlockFormat f = formatOf(type);
        return n / f.elements * f.bytes;
    }
};

// llama-quantize's Q4_K_M gives attn_v and ffn_down of these layers six bits (use_more_bits).
bool moreBits(int layer, int layers) {
    return layer < layers / 8 || layer >= 7 * layers / 8 || (layer - layers / 8) % 3 == 2;
}

// Llama 3.1's llama3 scaling as llama.cpp's converter stores it: a divisor per rotated pair.
std::vector<float> llama3Factors(const Architecture& c) {
    const RopeScaling& s = c.rotary.scaling;
    std::vector<float> factors;
    for (int i = 0; i < c.headDim / 2; ++i) {
        const double wavelength =
            2 * std::numbers::pi * std::pow(c.rotary.theta, 2.0 * i / c.headDim);
        const double low = s.originalContext / s.lowFrequencyFactor,
                     high = s.originalContext / s.highFrequencyFactor;
        double f = 1.0;
        if (wavelength > low) {
            f = s.factor;
        } else if (wavelength >= high) {
            const double smooth = (s.originalContext / wavelength - s.lowFrequencyFactor) /
                                  (s.highFrequencyFactor - s.lowFrequencyFactor);
            f = 1.0 / ((1 - smooth) / s.factor + smooth);
        }
        factors.push_back(static_cast<float>(f));
    }
    return factors;
}

// Random bytes, eight at a time (xorshift64*).
class RandomBytes {
  public:
    explicit RandomBytes(unsigned seed) : m_state(0x9E3779B97F4A7C15ull ^ seed) {}
    void fill(std::uint8_t* out, std::size_t n) {
        for (std::size_t i = 0; i < n; i += 8) {
            m_state ^= m_state >> 12;
            m_state ^= m_state << 25;
            m_state ^= m_state >> 27;
            const std::uint64_t v = m_state * 0x2545F4914F6CDD1Dull;
            std::memcpy(out + i, &v, std::min<std::size_t>(8, n - i));
        }
    }

  private:
    std::uint64_t m_state;
};

// One block. Q4_K (256 weights): x = d·s·q − dmin·m with 6-bit s and m and 4-bit q, here
// dmin = 8d so that weights centre near zero; Q6_K (256): x = d·s·(q − 32) with int8 s and 6-bit
// q; Q8_0 (32): x = d·q with int8 q.
void randomBlock(std::uint32_t type, RandomBytes& random, std::uint8_t* block) {
    constexpr std::uint16_t kQ4Scale = 0x068e, kQ4Min = 0x128e;  // f16 1e-4 and 8e-4
    constexpr std::uint16_t kQ6Scale = 0x0410;                   // f16 6.2e-5
    constexpr std::uint16_t kQ8Scale = 0x0c00;                   // f16 2.4e-4: std about 0.018
    if (type == kQ8_0) {
        std::memcpy(block, &kQ8Scale, 2);
        random.fill(block + 2, 32);
    } else if (type == kQ4K) {
        std::memcpy(block, &kQ4Scale, 2);
        std::memcpy(block + 2, &kQ4Min, 2);
        random.fill(block + 4, 140);  // 12 bytes of scales and mins, 128 of codes
    } else {
        random.fill(block, 208);  // 128 low bits, 64 high bits, 16 scales
        std::memcpy(block + 208, &kQ6Scale, 2);
    }
}

// Metadata keys under the architecture's prefix, in a GGUF writer: first the file type
// (llama.cpp's LLAMA_FTYPE_*) and the shape every decoder has.
class Metadata {
  public:
    Metadata(std::string arch, std::uint32_t fileType, const Architecture& c)
        : m_arch(std::move(arch)) {
        m_writer.addString("general.architecture", m_arch);
        u32("general.file_type", fileType, true);
        u32("block_count", c.layers);
        u32("context_length", c.contextLength);
        u32("embedding_length", c.dModel);
        u32("feed_forward_length", c.dFF);
    }
    void u32(const std::string& key, std::uint32_t v, bool global = false) {
        m_writer.addUint32(global ? key : m_arch + "." + key, v);
    }
    void f32(const std::string& key, float v) { m_writer.addFloat32(m_arch + "." + key, v); }
    GgufWriter& writer() { return m_writer; }

  private:
    std::string m_arch;
    GgufWriter m_writer;
};

// Writes the file tensor by tensor: blocks of random codes, F32 tensors from `f32Values` (the
// tensor's name and its element count give its values).
void writeGguf(const std::filesystem::path& file, const std::vector<Tensor>& tensors,
               Metadata& metadata, unsigned seed,
               const std::function<std::vector<float>(const Tensor&, std::size_t)>& f32Values) {
    GgufWriter& writer = metadata.writer();
    auto random = std::make_shared<RandomBytes>(seed);  // one stream, in the tensors' order
    for (const Tensor& t : tensors)
        writer.addTensor(t.name, t.ne, t.type, t.bytes(),
                         [&t, &f32Values, random](std::uint8_t* out, std::size_t size) {
                             if (t.type == kF32) {
                                 const std::vector<float> values = f32Values(t, size / 4);
                                 std::memcpy(out, values.data(), size);
                                 return;
                             }
                             for (std::size_t i = 0; i < size; i += formatOf(t.type).bytes)
                                 randomBlock(t.type, *random, out + i);
                         });
    std::filesystem::create_directories(file.parent_path());
    writer.write(file);
}

std::vector<float> ones(const Tensor&, std::size_t count) {
    return std::vector<float>(count, 1.0f);
}

}  // namespace

void writeRandomLlamaGguf(const std::filesystem::path& file, const Architecture& c, unsigned seed) {
    const auto d = static_cast<std::uint64_t>(c.dModel), ff = static_cast<std::uint64_t>(c.dFF),
               q = static_cast<std::uint64_t>(c.heads * c.headDim),
               kv = static_cast<std::uint64_t>(c.kvHeads * c.headDim);
    std::vector<Tensor> tensors = {
        {"token_embd.weight", {d, static_cast<std::uint64_t>(c.vocabSize)}, kQ4K},
        {"output_norm.weight", {d}, kF32},
        {"output.weight", {d, static_cast<std::uint64_t>(c.vocabSize)}, kQ6K},
        {"rope_freqs.weight", {static_cast<std::uint64_t>(c.headDim / 2)}, kF32}};
    for (int l = 0; l < c.layers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        const std::uint32_t more = moreBits(l, c.layers) ? kQ6K : kQ4K;
        tensors.push_back({blk + "attn_norm.weight", {d}, kF32});
        tensors.push_back({blk + "attn_q.weight", {d, q}, kQ4K});
        tensors.push_back({blk + "attn_k.weight", {d, kv}, kQ4K});
        tensors.push_back({blk + "attn_v.weight", {d, kv}, more});
        tensors.push_back({blk + "attn_output.weight", {q, d}, kQ4K});
        tensors.push_back({blk + "ffn_norm.weight", {d}, kF32});
        tensors.push_back({blk + "ffn_gate.weight", {d, ff}, kQ4K});
        tensors.push_back({blk + "ffn_up.weight", {d, ff}, kQ4K});
        tensors.push_back({blk + "ffn_down.weight", {ff, d}, more});
    }
    Metadata meta("llama", 15, c);  // LLAMA_FTYPE_MOSTLY_Q4_K_M
    meta.u32("attention.head_count", c.heads);
    meta.u32("attention.head_count_kv", c.kvHeads);
    meta.u32("rope.dimension_count", c.headDim);
    meta.f32("rope.freq_base", static_cast<float>(c.rotary.theta));
    meta.f32("attention.layer_norm_rms_epsilon", c.normEps);
    const std::vector<float> factors = llama3Factors(c);
    writeGguf(file, tensors, meta, seed, [&](const Tensor& t, std::size_t count) {
        return t.name == "rope_freqs.weight" ? factors : ones(t, count);
    });
}

void writeRandomQwen3MoeGguf(const std::filesystem::path& file, const Architecture& c,
                             unsigned seed) {
    const auto d = static_cast<std::uint64_t>(c.dModel),
               vocab = static_cast<std::uint64_t>(c.vocabSize),
               head = static_cast<std::uint64_t>(c.headDim),
               q = static_cast<std::uint64_t>(c.heads) * head,
               kv = static_cast<std::uint64_t>(c.kvHeads) * head,
               width = static_cast<std::uint64_t>(c.moe.width),
               experts = static_cast<std::uint64_t>(c.moe.experts);
    std::vector<Tensor> tensors = {{"token_embd.weight", {d, vocab}, kQ8_0},
                                   {"output_norm.weight", {d}, kF32},
                                   {"output.weight", {d, vocab}, kQ8_0}};
    for (int l = 0; l < c.layers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        tensors.push_back({blk + "attn_norm.weight", {d}, kF32});
        tensors.push_back({blk + "attn_q.weight", {d, q}, kQ8_0});
        tensors.push_back({blk + "attn_k.weight", {d, kv}, kQ8_0});
        tensors.push_back({blk + "attn_v.weight", {d, kv}, kQ8_0});
        tensors.push_back({blk + "attn_output.weight", {q, d}, kQ8_0});
        tensors.push_back({blk + "attn_q_norm.weight", {head}, kF32});
        tensors.push_back({blk + "attn_k_norm.weight", {head}, kF32});
        tensors.push_back({blk + "ffn_norm.weight", {d}, kF32});
        tensors.push_back({blk + "ffn_gate_inp.weight", {d, experts}, kF32});  // not quantised
        tensors.push_back({blk + "ffn_gate_exps.weight", {d, width, experts}, kQ8_0});
        tensors.push_back({blk + "ffn_up_exps.weight", {d, width, experts}, kQ8_0});
        tensors.push_back({blk + "ffn_down_exps.weight", {width, d, experts}, kQ8_0});
    }
    Metadata meta("qwen3moe", 7, c);  // LLAMA_FTYPE_MOSTLY_Q8_0
    meta.u32("expert_feed_forward_length", c.moe.width);
    meta.u32("expert_count", c.moe.experts);
    meta.u32("expert_used_count", c.moe.perToken);
    meta.u32("attention.head_count", c.heads);
    meta.u32("attention.head_count_kv", c.kvHeads);
    meta.u32("attention.key_length", c.headDim);
    meta.u32("attention.value_length", c.headDim);
    meta.f32("rope.freq_base", static_cast<float>(c.rotary.theta));
    meta.f32("attention.layer_norm_rms_epsilon", c.normEps);
    // The router's weights are uniform in ±0.05 (ones, as the norms have, would send every token
    // to the same experts), so that tokens choose different experts as under a trained router.
    RandomBytes routerRandom(seed + 1);
    writeGguf(file, tensors, meta, seed, [&](const Tensor& t, std::size_t count) {
        if (t.name.find("ffn_gate_inp") == std::string::npos) return ones(t, count);
        std::vector<std::uint8_t> bits(count);
        routerRandom.fill(bits.data(), count);
        std::vector<float> router(count);
        for (std::size_t i = 0; i < count; ++i) router[i] = (bits[i] / 255.0f - 0.5f) * 0.1f;
        return router;
    });
}

}  // namespace qkv::bench
