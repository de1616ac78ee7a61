#include "bench/qwen3_5_bench.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/bench_common.h"
#include "bench/child_stage.h"
#include "bench/random_checkpoint.h"
#include "core/model/forward.h"
#include "core/model/model_family.h"
#include "core/util/error.h"

namespace qkv::bench {
namespace {

constexpr int kFirstBlock = 4;  // layers 0-2 linear, 3 full

// Qwen/Qwen3.5-9B's text model (its config.json's text_config), as Qwen3_5ForCausalLM keeps it.
nlohmann::json qwen35_9bConfig(int layers) {
    nlohmann::json types = nlohmann::json::array();
    for (int l = 0; l < layers; ++l)
        types.push_back((l + 1) % 4 == 0 ? "full_attention" : "linear_attention");
    return {{"architectures", {"Qwen3_5ForCausalLM"}},
            {"model_type", "qwen3_5_text"},
            {"hidden_size", 4096},
            {"num_hidden_layers", layers},
            {"layer_types", types},
            {"num_attention_heads", 16},
            {"num_key_value_heads", 4},
            {"head_dim", 256},
            {"intermediate_size", 12288},
            {"linear_num_key_heads", 16},
            {"linear_num_value_heads", 32},
            {"linear_key_head_dim", 128},
            {"linear_value_head_dim", 128},
            {"linear_conv_kernel_dim", 4},
            {"attn_output_gate", true},
            {"partial_rotary_factor", 0.25},
            {"rope_theta", 10000000},
            {"rms_norm_eps", 1e-6},
            {"max_position_embeddings", 262144},
            {"vocab_size", 248320},
            {"tie_word_embeddings", false},
            {"torch_dtype", "bfloat16"}};
}

// Its tensors under Hugging Face's names; norms are stored as offsets from one (zeros here,
// written as ones: the benchmark times shapes, not values).
std::vector<RandomTensor> qwen35Tensors(const Architecture& c) {
    const std::int64_t d = c.dModel, hd = c.headDim, ff = c.dFF;
    std::vector<RandomTensor> t = {{"model.embed_tokens.weight", {c.vocabSize, d}, 0.02f}};
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        auto add = [&](const std::string& name, std::vector<std::int64_t> shape, float std) {
            t.push_back({p + name, std::move(shape), std});
        };
        add("input_layernorm.weight", {d}, 0.0f);
        add("post_attention_layernorm.weight", {d}, 0.0f);
        if (c.mixerOf(l) == Mixer::GatedDeltaNet) {
            const Architecture k = c.atLayer(l);
            const std::int64_t keys = std::int64_t{k.kvHeads} * k.headDim,
                               values = std::int64_t{k.heads} * k.valueWidth(), nv = k.heads;
            const std::string m = "linear_attn.";
            add(m + "in_proj_qkv.weight", {2 * keys + values, d}, 0.02f);
            add(m + "in_proj_z.weight", {values, d}, 0.02f);
            add(m + "in_proj_b.weight", {nv, d}, 0.02f);
            add(m + "in_proj_a.weight", {nv, d}, 0.02f);
            add(m + "conv1d.weight", {2 * keys + values, 1, c.deltaNet.convKernel}, 0.2f);
            add(m + "A_log", {nv}, 0.02f);
            add(m + "dt_bias", {nv}, 0.02f);
            add(m + "norm.weight", {k.valueWidth()}, 0.0f);
            add(m + "out_proj.weight", {d, values}, 0.02f);
        } else {
            add("self_attn.q_proj.weight", {2 * c.heads * hd, d}, 0.02f);  // [query | gate]
            add("self_attn.k_proj.weight", {c.kvHeads * hd, d}, 0.02f);
            add("self_attn.v_proj.weight", {c.kvHeads * hd, d}, 0.02f);
            add("self_attn.o_proj.weight", {d, c.heads * hd}, 0.02f);
            add("self_attn.q_norm.weight", {hd}, 0.0f);
            add("self_attn.k_norm.weight", {hd}, 0.0f);
        }
        add("mlp.gate_proj.weight", {ff, d}, 0.02f);
        add("mlp.up_proj.weight", {ff, d}, 0.02f);
        add("mlp.down_proj.weight", {d, ff}, 0.02f);
    }
    t.push_back({"model.norm.weight", {d}, 0.0f});
    t.push_back({"lm_head.weight", {c.vocabSize, d}, 0.02f});
    return t;
}

void writeConfig(const std::filesystem::path& dir, int layers) {
    std::ofstream config(dir / "config.json");
    config << qwen35_9bConfig(layers).dump(2);
    config.close();
    if (!config) throw Error(dir.string() + ": cannot write the benchmark checkpoint");
}

void writeCheckpoint(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    writeConfig(dir, 32);
    writeRandomShards(dir, qwen35Tensors(loadArchitecture(dir / "config.json")), 42);
}

// The model's first kFirstBlock layers: the checkpoint's shards and index linked, a config that
// stops there (the later layers' tensors are never read).
std::filesystem::path firstBlock(const std::filesystem::path& dir, const TemporaryFolder& into) {
    const std::filesystem::path block = into.path / "first-block";
    std::filesystem::create_directories(block);
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (entry.path().filename() != "config.json")
            std::filesystem::create_symlink(std::filesystem::absolute(entry.path()),
                                            block / entry.path().filename());
    writeConfig(block, kFirstBlock);
    return block;
}

// The multiply-adds of a token: every layer's projections and MLP (no embedding lookup, and no
// output head: the views ask for no logits).
double matrixParameters(const Architecture& c) {
    const double d = c.dModel;
    double sum = 0;
    for (int l = 0; l < c.layers; ++l) {
        const Architecture k = c.atLayer(l);
        if (c.mixerOf(l) == Mixer::GatedDeltaNet) {
            const double keys = double(k.kvHeads) * k.headDim,
                         values = double(k.heads) * k.valueWidth();
            sum += d * (2 * keys + values) + d * values + 2 * d * k.heads + values * d;
        } else {
            const double q = double(c.heads) * c.headDim, kv = double(c.kvHeads) * c.headDim;
            sum += d * 2 * q + 2 * d * kv + q * d;
        }
        sum += 3 * d * c.dFF;
    }
    return sum;
}

// One request of `tokens` tokens capturing head 0 of `layer`, once its pages are cached (a first
// run reads them): the second run's seconds.
double oneHeadSeconds(const std::filesystem::path& dir, int layer, int tokens, int vocab) {
    auto model = Model::open(dir);
    auto backend = createCpuBackend();
    const ForwardPass pass(*model, *backend);
    ForwardRequest request;
    request.ids = randomIds(tokens, vocab);
    request.capture.layer = layer;
    request.capture.head = 0;
    request.logits = LogitsMode::None;
    pass.run(request);
    const auto start = Clock::now();
    pass.run(request);
    return seconds(start);
}

}  // namespace

int runQwen35Bench(const LargeModelOptions& o, int longTokens) {
    TemporaryFolder temporary;
    const std::filesystem::path dir = checkpointFolder(
        o.checkpoint, "Qwen3.5-9B-shaped bf16 (17.9 GB)", writeCheckpoint, temporary);
    const Architecture shape = loadArchitecture(dir / "config.json");

    std::cerr << "open + info ...\n";
    const Stage info = openStage(dir.string());
    std::cerr << "analyze every head ...\n";
    const Stage analyze = inChild([&] { return analysisSeconds(dir.string(), false); });
    std::cerr << "forward + capture of every head at " << o.tokens << " tokens ...\n";
    ForwardRequest request;
    request.ids = randomIds(o.tokens, shape.vocabSize);
    request.logits = LogitsMode::None;
    const Stage forward = inChild([&] { return cachedForwardSeconds(dir.string(), request); });
    Stage linear, full;
    TemporaryFolder links{std::filesystem::temp_directory_path() / "qkvlab-bench-first-block"};
    if (longTokens > 0) {
        std::filesystem::remove_all(links.path);
        const std::filesystem::path block = firstBlock(dir, links);
        std::cerr << "one head of a linear layer at " << longTokens << " tokens ...\n";
        linear = inChild([&] { return oneHeadSeconds(block, 0, longTokens, shape.vocabSize); });
        std::cerr << "one head of a full-attention layer at " << longTokens << " tokens ...\n";
        full = inChild([&] { return oneHeadSeconds(block, 3, longTokens, shape.vocabSize); });
    }

    std::cerr << "measuring SGEMM throughput ...\n";
    const double gflops = sgemmGflops();
    const double parameters = matrixParameters(shape);
    const double ideal = 2.0 * parameters * o.tokens / (gflops * 1e9);
    int heads = 0;
    for (int l = 0; l < shape.layers; ++l) heads += shape.headsOf(l);
    std::printf(
        "\nQwen3.5-9B shape (bf16: 24 Gated DeltaNet layers of 32 value heads, 8 gated attention "
        "layers of 16; %.2fB parameters in its matrices), %d tokens\n",
        parameters / 1e9, o.tokens);
    std::printf("SGEMM %.1f GFLOP/s: 2 * parameters * tokens takes %.2f s at that rate\n", gflops,
                ideal);
    std::printf(
        "peak anonymous memory: RssAnon sampled every 10 ms (the mapped weights are file pages, "
        "not counted)\n\n");
    printRow("open + info", info, 1.0, 200'000'000);
    const std::string all = std::to_string(heads) + " heads";
    printRow(("analyze " + all).c_str(), analyze, 90.0, 3'000'000'000);
    char note[96];
    std::snprintf(note, sizeof note, "  (%.2fx the SGEMM time)", forward.seconds / ideal);
    printRow(("forward + capture " + all).c_str(), forward, 1.5 * ideal, 3'000'000'000, note);
    bool ok = info.error.empty() && analyze.error.empty() && forward.error.empty();
    if (longTokens > 0) {
        std::printf("\n%d tokens, one head, on the first %d layers (3 linear, 1 full):\n",
                    longTokens, kFirstBlock);
        if (full.error.empty())
            std::printf("%-38s %9.2f s  (the reference)   %6.2f GB\n",
                        "full-attention layer 3, head 0", full.seconds, full.peakAnon / 1e9);
        else
            std::printf("%-38s FAILED: %s\n", "full-attention layer 3, head 0", full.error.c_str());
        std::snprintf(note, sizeof note, "  (%.2fx the full-attention request)",
                      linear.seconds / full.seconds);
        // No memory target: the row's limit is this machine's memory.
        printRow("linear layer 0, head 0", linear, 2.0 * full.seconds, 24'000'000'000, note);
        ok = ok && linear.error.empty() && full.error.empty();
    }
    return ok ? 0 : 1;
}

}  // namespace qkv::bench
