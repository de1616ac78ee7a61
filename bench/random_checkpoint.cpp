#include "bench/random_checkpoint.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <tuple>
#include <vector>

#include "core/model/model_family.h"
#include "core/train/checkpoint.h"
#include "core/util/error.h"
#include "core/util/half.h"

namespace qkv::bench {
namespace {

using Entry = RandomTensor;

// MXFP4 codes drawn uniformly have an RMS of 2.9 units: scales of 2^-7 give weights of std 0.023.
constexpr std::uint8_t kMxfp4Scale = 120;
bool isScales(const Entry& e) { return e.name.ends_with("_scales"); }

std::vector<Entry> gpt2Entries(const train::ModelShape& s) {
    const std::int64_t d = s.dModel;
    std::vector<Entry> e = {{"wte.weight", {s.vocab, d}, 0.02f},
                            {"wpe.weight", {s.context, d}, 0.01f}};
    for (int l = 0; l < s.layers; ++l) {
        const std::string p = "h." + std::to_string(l) + ".";
        e.push_back({p + "ln_1.weight", {d}, 0.0f});
        e.push_back({p + "ln_1.bias", {d}, 0.02f});
        e.push_back({p + "attn.c_attn.weight", {d, 3 * d}, 0.02f});
        e.push_back({p + "attn.c_attn.bias", {3 * d}, 0.02f});
        e.push_back({p + "attn.c_proj.weight", {d, d}, 0.02f});
        e.push_back({p + "attn.c_proj.bias", {d}, 0.02f});
        e.push_back({p + "ln_2.weight", {d}, 0.0f});
        e.push_back({p + "ln_2.bias", {d}, 0.02f});
        e.push_back({p + "mlp.c_fc.weight", {d, 4 * d}, 0.02f});
        e.push_back({p + "mlp.c_fc.bias", {4 * d}, 0.02f});
        e.push_back({p + "mlp.c_proj.weight", {4 * d, d}, 0.02f});
        e.push_back({p + "mlp.c_proj.bias", {d}, 0.02f});
    }
    e.push_back({"ln_f.weight", {d}, 0.0f});
    e.push_back({"ln_f.bias", {d}, 0.02f});
    return e;
}

std::int64_t elements(const Entry& e) {
    std::int64_t n = 1;
    for (auto d : e.shape) n *= d;
    return n;
}

constexpr int kEndOfText = 50256;  // GPT-2's <|endoftext|>

// Llama's tensor names and shapes (q_proj [heads·d_k, d], k/v_proj [kv·d_k, d], ...).
std::vector<Entry> llamaEntries(const Architecture& c) {
    const std::int64_t d = c.dModel, q = std::int64_t{c.heads} * c.headDim,
                       kv = std::int64_t{c.kvHeads} * c.headDim, ff = c.dFF;
    std::vector<Entry> e = {{"model.embed_tokens.weight", {c.vocabSize, d}, 0.02f}};
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        e.push_back({p + "input_layernorm.weight", {d}, 0.0f});
        e.push_back({p + "self_attn.q_proj.weight", {q, d}, 0.02f});
        e.push_back({p + "self_attn.k_proj.weight", {kv, d}, 0.02f});
        e.push_back({p + "self_attn.v_proj.weight", {kv, d}, 0.02f});
        e.push_back({p + "self_attn.o_proj.weight", {d, q}, 0.02f});
        e.push_back({p + "post_attention_layernorm.weight", {d}, 0.0f});
        e.push_back({p + "mlp.gate_proj.weight", {ff, d}, 0.02f});
        e.push_back({p + "mlp.up_proj.weight", {ff, d}, 0.02f});
        e.push_back({p + "mlp.down_proj.weight", {d, ff}, 0.02f});
    }
    e.push_back({"model.norm.weight", {d}, 0.0f});
    if (!c.tiedEmbeddings) e.push_back({"lm_head.weight", {c.vocabSize, d}, 0.02f});
    return e;
}

// gpt-oss's tensors as the Hub stores them: attention, sinks, norms, router and expert biases in
// bf16, the experts in MXFP4 ([experts, out, in/32, 16] blocks and [experts, out, in/32] scales).
std::vector<Entry> gptOssEntries(const Architecture& c) {
    const std::int64_t d = c.dModel, q = std::int64_t{c.heads} * c.headDim,
                       kv = std::int64_t{c.kvHeads} * c.headDim, width = c.moe.width,
                       experts = c.moe.experts;
    std::vector<Entry> e = {{"model.embed_tokens.weight", {c.vocabSize, d}, 0.02f}};
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        e.push_back({p + "input_layernorm.weight", {d}, 0.0f});
        for (const auto& [name, rows, cols] :
             {std::tuple{"q_proj", q, d}, {"k_proj", kv, d}, {"v_proj", kv, d}, {"o_proj", d, q}}) {
            e.push_back({p + "self_attn." + name + ".weight", {rows, cols}, 0.02f});
            e.push_back({p + "self_attn." + name + ".bias", {rows}, 0.02f});
        }
        e.push_back({p + "self_attn.sinks", {c.heads}, 0.02f});
        e.push_back({p + "post_attention_layernorm.weight", {d}, 0.0f});
        e.push_back({p + "mlp.router.weight", {experts, d}, 0.02f});
        e.push_back({p + "mlp.router.bias", {experts}, 0.02f});
        for (const auto& [name, out, in] :
             {std::tuple{"gate_up_proj", 2 * width, d}, {"down_proj", d, width}}) {
            const std::string m = p + "mlp.experts." + name;
            e.push_back({m + "_blocks", {experts, out, in / 32, 16}, 0.0f, "U8"});
            e.push_back({m + "_scales", {experts, out, in / 32}, 0.0f, "U8"});
            e.push_back({m + "_bias", {experts, out}, 0.02f});
        }
    }
    e.push_back({"model.norm.weight", {d}, 0.0f});
    e.push_back({"lm_head.weight", {c.vocabSize, d}, 0.02f});
    return e;
}

std::uint64_t storedBytes(const Entry& e) {
    const std::string dtype = e.dtype;
    return (dtype == "F32" ? 4 : dtype == "BF16" ? 2 : 1) * static_cast<std::uint64_t>(elements(e));
}

// A safetensors header for `entries` stored back to back, each in its dtype (padded to 8 bytes,
// as the Python writer does).
void writeHeader(std::ofstream& out, const std::vector<Entry>& entries) {
    nlohmann::json header = nlohmann::json::object();
    std::uint64_t offset = 0;
    for (const auto& e : entries) {
        const std::uint64_t bytes = storedBytes(e);
        header[e.name] = {
            {"dtype", e.dtype}, {"shape", e.shape}, {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::string text = header.dump();
    text.resize((text.size() + 7) / 8 * 8, ' ');
    const std::uint64_t length = text.size();
    for (int i = 0; i < 8; ++i) out.put(static_cast<char>((length >> (8 * i)) & 0xFF));
    out << text;
}

// `count` values of `block` from a random place on, wrapping around.
template <typename T>
void writeFromBlock(std::ofstream& out, const std::vector<T>& block, size_t count,
                    std::mt19937& engine) {
    size_t left = count, at = engine() % block.size();
    while (left > 0) {
        const size_t n = std::min(left, block.size() - at);
        out.write(reinterpret_cast<const char*>(block.data() + at),
                  static_cast<std::streamsize>(n * sizeof(T)));
        left -= n;
        at = 0;
    }
}

// One .safetensors file of `entries`: bf16 norm scales are ones, every bf16 weight has std 0.02,
// MXFP4 blocks are random codes. Values are read from a random block (a prime number of them, so
// no two rows of a weight repeat each other) entered at a random place per tensor: 16 GB of fresh
// normal samples would take minutes to draw.
void writeShard(const std::filesystem::path& file, const std::vector<Entry>& entries,
                std::mt19937& engine) {
    constexpr size_t kBlock = 4194301;  // prime
    static const std::vector<std::uint16_t> normals = [] {
        std::mt19937 e(7);
        std::normal_distribution<float> normal(0.0f, 0.02f);
        std::vector<std::uint16_t> b(kBlock);
        for (auto& v : b) v = floatToBf16(normal(e));
        return b;
    }();
    static const std::vector<std::uint8_t> bytes = [] {
        std::mt19937 e(8);
        std::vector<std::uint8_t> b(kBlock);
        for (auto& v : b) v = static_cast<std::uint8_t>(e());
        return b;
    }();
    std::ofstream out(file, std::ios::binary);
    writeHeader(out, entries);
    for (const auto& e : entries) {
        const size_t count = static_cast<size_t>(elements(e));
        if (e.hole) {
            out.seekp(static_cast<std::streamoff>(storedBytes(e)), std::ios::cur);
        } else if (std::string(e.dtype) == "U8" && isScales(e)) {
            const std::vector<std::uint8_t> scales(count, kMxfp4Scale);
            out.write(reinterpret_cast<const char*>(scales.data()),
                      static_cast<std::streamsize>(count));
        } else if (std::string(e.dtype) == "U8") {
            writeFromBlock(out, bytes, count, engine);
        } else if (e.stddev == 0.0f) {
            const std::vector<std::uint16_t> ones(count, floatToBf16(1.0f));
            out.write(reinterpret_cast<const char*>(ones.data()),
                      static_cast<std::streamsize>(count * 2));
        } else {
            writeFromBlock(out, normals, count, engine);
        }
    }
    const auto size = static_cast<std::uintmax_t>(out.tellp());
    out.close();
    if (!out) throw Error(file.string() + ": cannot write the benchmark checkpoint");
    std::filesystem::resize_file(file, size);  // a hole at the end, when the last tensor is one
}

// `entries` in shards of about 4 GB, as the Hub's files are, with their index.
void writeShards(const std::filesystem::path& dir, const std::vector<Entry>& entries,
                 unsigned seed) {
    std::filesystem::create_directories(dir);
    constexpr std::uint64_t kShardBytes = std::uint64_t{4} << 30;
    std::vector<std::vector<Entry>> shards(1);
    std::uint64_t bytes = 0;
    for (const auto& e : entries) {
        const std::uint64_t size = storedBytes(e);
        if (bytes > 0 && bytes + size > kShardBytes) {
            shards.emplace_back();
            bytes = 0;
        }
        shards.back().push_back(e);
        bytes += size;
    }
    std::mt19937 engine(seed);
    nlohmann::json weightMap = nlohmann::json::object();
    for (size_t i = 0; i < shards.size(); ++i) {
        char name[64];
        std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", i + 1, shards.size());
        writeShard(dir / name, shards[i], engine);
        for (const auto& e : shards[i]) weightMap[e.name] = name;
    }
    std::ofstream(dir / "model.safetensors.index.json")
        << nlohmann::json{{"metadata", nlohmann::json::object()}, {"weight_map", weightMap}}.dump(
               2);
}

}  // namespace

train::ModelShape gpt2Small() {
    train::ModelShape shape;
    shape.layers = 12;
    shape.heads = 12;
    shape.dModel = 768;
    shape.context = 4096;  // GPT-2 has 1024 positions; the long-input row needs 4096
    shape.vocab = 50257;
    return shape;
}

Architecture llama3_8b() {
    Architecture c;
    c.layers = 32;
    c.heads = 32;
    c.kvHeads = 8;
    c.dModel = 4096;
    c.headDim = 128;
    c.dFF = 14336;
    c.vocabSize = 128256;
    c.contextLength = 131072;  // Llama-3.1's config: 8192 positions scaled by rope llama3
    c.rotary.theta = 500000.0;
    c.rotary.scaling.type = RopeType::Llama3;
    c.rotary.scaling.factor = 8.0;
    c.rotary.scaling.originalContext = 8192;
    c.normEps = 1e-5f;
    c.tiedEmbeddings = false;
    return c;
}

Architecture llama3_2_1b() {
    Architecture c = llama3_8b();
    c.layers = 16;
    c.dModel = 2048;
    c.headDim = 64;
    c.dFF = 8192;
    c.rotary.scaling.factor = 32.0;
    c.tiedEmbeddings = true;
    return c;
}

Architecture qwen3_30b_a3b() {
    Architecture c;
    c.layers = 48;
    c.heads = 32;
    c.kvHeads = 4;
    c.dModel = 2048;
    c.headDim = 128;
    c.dFF = 6144;
    c.vocabSize = 151936;
    c.contextLength = 40960;
    c.rotary.theta = 1e6;
    c.normEps = 1e-6f;
    c.tiedEmbeddings = false;
    c.moe.experts = 128;
    c.moe.perToken = 8;
    c.moe.width = 768;
    return c;
}

void writeRandomShards(const std::filesystem::path& dir, const std::vector<RandomTensor>& tensors,
                       unsigned seed) {
    writeShards(dir, tensors, seed);
}

void writeRandomLlamaBf16(const std::filesystem::path& dir, const Architecture& c, unsigned seed) {
    writeShards(dir, llamaEntries(c), seed);
    const nlohmann::json config = {
        {"architectures", {"LlamaForCausalLM"}},
        {"model_type", "llama"},
        {"num_hidden_layers", c.layers},
        {"num_attention_heads", c.heads},
        {"num_key_value_heads", c.kvHeads},
        {"hidden_size", c.dModel},
        {"head_dim", c.headDim},
        {"intermediate_size", c.dFF},
        {"vocab_size", c.vocabSize},
        {"max_position_embeddings", c.contextLength},
        {"rms_norm_eps", c.normEps},
        {"rope_theta", c.rotary.theta},
        {"rope_scaling",
         {{"rope_type", "llama3"},
          {"factor", c.rotary.scaling.factor},
          {"low_freq_factor", c.rotary.scaling.lowFrequencyFactor},
          {"high_freq_factor", c.rotary.scaling.highFrequencyFactor},
          {"original_max_position_embeddings", c.rotary.scaling.originalContext}}},
        {"hidden_act", "silu"},
        {"tie_word_embeddings", c.tiedEmbeddings},
        {"torch_dtype", "bfloat16"}};
    std::ofstream configFile(dir / "config.json");
    configFile << config.dump(2);
    if (!configFile) throw Error(dir.string() + ": cannot write the benchmark checkpoint");
}

namespace {

// `checkpoint`, else a new folder that `temporary` removes on exit.
std::filesystem::path benchmarkFolder(const std::string& checkpoint, TemporaryFolder& temporary) {
    if (!checkpoint.empty()) return checkpoint;
    temporary.path = std::filesystem::temp_directory_path() /
                     ("qkvlab-bench-" + std::to_string(std::random_device()()));
    return temporary.path;
}

// Writes `target` with `write` unless `marker` (what a written one has) exists.
void writeUnlessThere(const std::filesystem::path& marker, const std::string& description,
                      const std::filesystem::path& target,
                      const std::function<void(const std::filesystem::path&)>& write) {
    if (std::filesystem::exists(marker)) return;
    std::cerr << "writing a " << description << " to " << target << " ...\n";
    const auto start = Clock::now();
    write(target);
    std::cerr << "  written in " << seconds(start) << " s\n";
}

}  // namespace

std::string checkpointFolder(const std::string& checkpoint, const std::string& description,
                             const std::function<void(const std::filesystem::path&)>& write,
                             TemporaryFolder& temporary) {
    const std::filesystem::path dir = benchmarkFolder(checkpoint, temporary);
    writeUnlessThere(dir / "config.json", description + " checkpoint", dir, write);
    return dir.string();
}

std::filesystem::path checkpointFile(const std::string& checkpoint, const std::string& name,
                                     const std::string& description,
                                     const std::function<void(const std::filesystem::path&)>& write,
                                     TemporaryFolder& temporary) {
    const std::filesystem::path file = benchmarkFolder(checkpoint, temporary) / name;
    writeUnlessThere(file, description, file, write);
    return file;
}

std::string llamaCheckpointFolder(const std::string& checkpoint, const Architecture& shape,
                                  const std::string& description, TemporaryFolder& temporary) {
    return checkpointFolder(
        checkpoint, description + " bf16",
        [&](const std::filesystem::path& dir) { writeRandomLlamaBf16(dir, shape, 42); }, temporary);
}

void writeRandomGpt2(const std::filesystem::path& dir, const train::ModelShape& s, unsigned seed) {
    std::filesystem::create_directories(dir);
    auto entries = gpt2Entries(s);
    for (auto& e : entries) e.dtype = "F32";
    std::ofstream out(dir / "model.safetensors", std::ios::binary);
    writeHeader(out, entries);
    std::mt19937 engine(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> chunk;
    for (const auto& e : entries) {
        chunk.resize(static_cast<size_t>(elements(e)));
        for (float& v : chunk) v = e.stddev == 0.0f ? 1.0f : e.stddev * normal(engine);
        out.write(reinterpret_cast<const char*>(chunk.data()),
                  static_cast<std::streamsize>(chunk.size() * sizeof(float)));
    }
    out.close();
    if (!out) throw Error(dir.string() + ": cannot write the benchmark checkpoint");
    train::writeConfigJson(s, kEndOfText, dir);
}

}  // namespace qkv::bench

namespace qkv::bench {

// openai/gpt-oss-20b's config.json (its layer_types alternate sliding and full, sliding first,
// which is also the reader's default).
const nlohmann::json& gptOss20bConfig() {
    static const nlohmann::json config = {
        {"architectures", {"GptOssForCausalLM"}},
        {"model_type", "gpt_oss"},
        {"attention_bias", true},
        {"experts_per_token", 4},
        {"num_experts_per_tok", 4},
        {"num_local_experts", 32},
        {"head_dim", 64},
        {"hidden_act", "silu"},
        {"hidden_size", 2880},
        {"intermediate_size", 2880},
        {"initial_context_length", 4096},
        {"max_position_embeddings", 131072},
        {"num_attention_heads", 64},
        {"num_hidden_layers", 24},
        {"num_key_value_heads", 8},
        {"rms_norm_eps", 1e-05},
        {"rope_scaling",
         {{"beta_fast", 32.0},
          {"beta_slow", 1.0},
          {"factor", 32.0},
          {"original_max_position_embeddings", 4096},
          {"rope_type", "yarn"},
          {"truncate", false}}},
        {"rope_theta", 150000},
        {"sliding_window", 128},
        {"swiglu_limit", 7.0},
        {"tie_word_embeddings", false},
        {"vocab_size", 201088},
        {"quantization_config",
         {{"modules_to_not_convert",
           {"model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens",
            "lm_head"}},
          {"quant_method", "mxfp4"}}}};
    return config;
}

void writeRandomGptOssMxfp4(const std::filesystem::path& dir, unsigned seed) {
    std::filesystem::create_directories(dir);
    std::ofstream configFile(dir / "config.json");
    configFile << gptOss20bConfig().dump(2);
    configFile.close();
    if (!configFile) throw Error(dir.string() + ": cannot write the benchmark checkpoint");
    writeShards(dir, gptOssEntries(loadArchitecture(dir / "config.json")), seed);
}

}  // namespace qkv::bench

namespace qkv::bench {
namespace {

// A linear weight as DeepSeek's FP8 releases store it: F8_E4M3 bytes and one F32 inverse scale
// per 128 x 128 block (ragged last blocks rounded up), both zeros here.
void addFp8Linear(std::vector<Entry>& e, const std::string& name, std::int64_t rows,
                  std::int64_t cols) {
    constexpr std::int64_t kBlock = 128;
    e.push_back({name + ".weight", {rows, cols}, 0.0f, "F8_E4M3", true});
    e.push_back({name + ".weight_scale_inv",
                 {(rows + kBlock - 1) / kBlock, (cols + kBlock - 1) / kBlock},
                 0.0f,
                 "F32",
                 true});
}

// A SwiGLU block (gate, up, down) of `width` under `prefix`.
void addFp8Mlp(std::vector<Entry>& e, const std::string& prefix, std::int64_t d,
               std::int64_t width) {
    addFp8Linear(e, prefix + "gate_proj", width, d);
    addFp8Linear(e, prefix + "up_proj", width, d);
    addFp8Linear(e, prefix + "down_proj", d, width);
}

// One decoder layer of DeepSeek-V3.2 as its Hub files key it: latent attention, the lightning
// indexer (wq_b and wk in FP8; weights_proj and k_norm in bf16, as DeepSeek's own inference code
// keeps them), then a dense MLP or the router, the shared expert and every routed expert.
void addDeepSeekV32Layer(std::vector<Entry>& e, const Architecture& c, int layer, bool experts) {
    const std::int64_t d = c.dModel, heads = c.heads;
    const std::string p = "model.layers." + std::to_string(layer) + ".";
    auto norm = [&](const std::string& name, std::int64_t width) {
        e.push_back({p + name + ".weight", {width}, 0.0f});
    };
    norm("input_layernorm", d);
    norm("post_attention_layernorm", d);
    const std::string a = p + "self_attn.";
    addFp8Linear(e, a + "q_a_proj", c.latent.queryRank, d);
    norm("self_attn.q_a_layernorm", c.latent.queryRank);
    addFp8Linear(e, a + "q_b_proj", heads * c.headDim, c.latent.queryRank);
    addFp8Linear(e, a + "kv_a_proj_with_mqa", c.latent.keyValueRank + c.latent.ropeDim, d);
    norm("self_attn.kv_a_layernorm", c.latent.keyValueRank);
    addFp8Linear(e, a + "kv_b_proj", heads * (c.latent.nopeDim + c.valueWidth()),
                 c.latent.keyValueRank);
    addFp8Linear(e, a + "o_proj", d, heads * c.valueWidth());
    const std::int64_t indexWidth = c.keyIndexer.heads * std::int64_t{c.keyIndexer.headDim};
    addFp8Linear(e, a + "indexer.wq_b", indexWidth, c.latent.queryRank);
    addFp8Linear(e, a + "indexer.wk", c.keyIndexer.headDim, d);
    norm("self_attn.indexer.k_norm", c.keyIndexer.headDim);
    e.push_back({a + "indexer.k_norm.bias", {c.keyIndexer.headDim}, 0.0f, "BF16", true});
    e.push_back({a + "indexer.weights_proj.weight", {c.keyIndexer.heads, d}, 0.0f, "BF16", true});
    if (!experts) return addFp8Mlp(e, p + "mlp.", d, c.dFF);
    e.push_back({p + "mlp.gate.weight", {c.moe.experts, d}, 0.02f});
    e.push_back({p + "mlp.gate.e_score_correction_bias", {c.moe.experts}, 0.0f, "F32", true});
    addFp8Mlp(e, p + "mlp.shared_experts.", d, c.moe.sharedWidth);
    for (int x = 0; x < c.moe.experts; ++x)
        addFp8Mlp(e, p + "mlp.experts." + std::to_string(x) + ".", d, c.moe.width);
}

std::vector<Entry> deepSeekV32Entries(const Architecture& c, int predictionLayers) {
    const std::int64_t d = c.dModel;
    std::vector<Entry> e = {{"model.embed_tokens.weight", {c.vocabSize, d}, 0.02f}};
    for (int l = 0; l < c.layers; ++l) addDeepSeekV32Layer(e, c, l, c.kindOf(l).experts);
    // The multi-token-prediction layers after the last (transformers ignores them on load).
    for (int l = c.layers; l < c.layers + predictionLayers; ++l) {
        addDeepSeekV32Layer(e, c, l, true);
        const std::string p = "model.layers." + std::to_string(l) + ".";
        for (const char* norm : {"enorm", "hnorm", "shared_head.norm"})
            e.push_back({p + norm + ".weight", {d}, 0.0f});
        addFp8Linear(e, p + "eh_proj", d, 2 * d);
        e.push_back({p + "shared_head.head.weight", {c.vocabSize, d}, 0.0f, "BF16", true});
    }
    e.push_back({"model.norm.weight", {d}, 0.0f});
    e.push_back({"lm_head.weight", {c.vocabSize, d}, 0.0f, "BF16", true});
    return e;
}

}  // namespace

void writeSparseDeepSeekV32Fp8(const std::filesystem::path& dir,
                               const std::filesystem::path& config, unsigned seed) {
    std::filesystem::create_directories(dir);
    const nlohmann::json json = nlohmann::json::parse(std::ifstream(config));
    writeShards(
        dir,
        deepSeekV32Entries(loadArchitecture(config), json.value("num_nextn_predict_layers", 0)),
        seed);
    std::filesystem::copy_file(config, dir / "config.json");  // last: it marks a whole checkpoint
}

}  // namespace qkv::bench
