#pragma once
// Random checkpoints for the benchmark, keyed like the Hub's files: a GPT-2 with float32 weights
// (streamed, so a 500 MB model needs no 500 MB buffer), Llama-shaped bf16 and gpt-oss-shaped
// MXFP4 ones.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "core/model/architecture.h"
#include "core/train/model_shape.h"

namespace qkv::bench {

// One tensor of a random checkpoint: bf16 of the given std (0: ones, a norm's weights), or U8
// (MXFP4 blocks of random bytes, their scales fixed); with `hole`, zeros in any dtype (F8_E4M3,
// F32, ...) that the file holds as a hole, taking no disk.
struct RandomTensor {
    std::string name;
    std::vector<std::int64_t> shape;
    float stddev;
    const char* dtype = "BF16";
    bool hole = false;
};
// `tensors` in safetensors shards of about 4 GB, as the Hub's files are, with their index.
void writeRandomShards(const std::filesystem::path& dir, const std::vector<RandomTensor>& tensors,
                       unsigned seed);

// GPT-2 small (124M) with 4096 positions: the benchmark's model.
train::ModelShape gpt2Small();

// Llama-3.1-8B's shape and rotary scaling (meta-llama/Llama-3.1-8B's config.json).
Architecture llama3_8b();
// Llama-3.2-1B's (meta-llama/Llama-3.2-1B's config.json): rope llama3 ×32, tied embeddings.
Architecture llama3_2_1b();
// Qwen/Qwen3-30B-A3B's shape (its config.json): 48 layers of 128 experts, 8 per token.
Architecture qwen3_30b_a3b();

// Writes a Llama checkpoint of `shape` (its rope llama3 scaling and embedding tie) in bf16,
// sharded (about 4 GB each) with its index, and its config.json. Random weights with std 0.02 and
// unit norm scales.
void writeRandomLlamaBf16(const std::filesystem::path& dir, const Architecture& shape,
                          unsigned seed);
// The folder of a benchmark checkpoint: `checkpoint` (written there by `write` first when it
// holds no model, and kept for later runs), else a new folder that `temporary` removes on exit.
// `description` ("gpt-oss-20b-shaped MXFP4 (13 GB)") names it on the progress line.
std::string checkpointFolder(const std::string& checkpoint, const std::string& description,
                             const std::function<void(const std::filesystem::path&)>& write,
                             TemporaryFolder& temporary);
// The benchmark file `name` ("llama3.1-8b-shaped-Q4_K_M.gguf") in `checkpoint` (written there by
// `write` first when it is not there, and kept for later runs), else in a new folder that
// `temporary` removes on exit. `description` names it on the progress line.
std::filesystem::path checkpointFile(const std::string& checkpoint, const std::string& name,
                                     const std::string& description,
                                     const std::function<void(const std::filesystem::path&)>& write,
                                     TemporaryFolder& temporary);
// The folder of a Llama-shaped benchmark checkpoint: `checkpoint` (written there first when it
// holds no model, and kept for later runs), else a new folder that `temporary` removes on exit.
// `description` ("Llama-3-8B-shaped (16 GB)") names it on the progress line.
std::string llamaCheckpointFolder(const std::string& checkpoint, const Architecture& shape,
                                  const std::string& description, TemporaryFolder& temporary);

// openai/gpt-oss-20b's shape as the Hub stores it (config.json with quant_method mxfp4): bf16
// attention, router and biases, MXFP4 experts of random codes under one scale (weights of std
// about 0.02), 13 GB in shards of about 4 GB.
void writeRandomGptOssMxfp4(const std::filesystem::path& dir, unsigned seed);

// deepseek-ai/DeepSeek-V3.2 as the Hub stores it, at its full 671B shape from `config` (its
// config.json, copied into `dir`): every linear weight F8_E4M3 with an F32 inverse scale per 128 x
// 128 block, the multi-token-prediction layer included (which the reader ignores), in shards of
// about 4 GB. Only the token embedding and the routers are random (bf16, std 0.02) and the norms
// ones, so that each token is routed to its own experts; every other weight is zero, stored as a
// hole: 2 GB of disk for a model of about 690 GB.
void writeSparseDeepSeekV32Fp8(const std::filesystem::path& dir,
                               const std::filesystem::path& config, unsigned seed);

void writeRandomGpt2(const std::filesystem::path& dir, const train::ModelShape& shape,
                     unsigned seed);

}  // namespace qkv::bench
