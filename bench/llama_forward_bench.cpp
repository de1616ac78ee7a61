#include "bench/llama_forward_bench.h"

#include <cstdio>
#include <iostream>
#include <random>

#include "bench/app_requests.h"
#include "bench/bench_common.h"
#include "bench/random_checkpoint.h"
#include "core/model/forward.h"

namespace qkv::bench {
namespace {

constexpr double kTorchRatioTarget = 0.4;

std::string joined(const std::vector<int>& values) {
    std::string text;
    for (int v : values) text += (text.empty() ? "" : ",") + std::to_string(v);
    return text;
}

// The two PyTorch peers: bfloat16 as the weights are stored (oneDNN's BF16 kernels, activations
// rounded to bf16), and float32, qkvlab's arithmetic.
struct Peer {
    const char* name;
    const char* flag;
};
constexpr Peer kPeers[] = {{"PyTorch bf16", ""}, {"PyTorch f32", " --float32"}};

// A peer's forward seconds per token count for one round; null when it failed.
nlohmann::json torchRound(const LlamaForwardOptions& o, const std::string& dir, const Peer& peer) {
    const std::string command = o.python + " " + std::string(QKV_BENCH_SOURCE_DIR) +
                                "/torch_llama.py " + dir + " --tokens " + joined(o.tokens) +
                                peer.flag + " 2>&1";
    const nlohmann::json result = runReferenceScript(command);
    return result.is_object() ? result.at("forward_seconds") : nlohmann::json();
}

}  // namespace

int runLlamaForwardBench(const LlamaForwardOptions& o) {
    const Architecture shape = llama3_2_1b();
    TemporaryFolder temporary;
    const std::string dir =
        llamaCheckpointFolder(o.checkpoint, shape, "Llama-3.2-1B-shaped (2.5 GB)", temporary);
    const auto model = Model::open(dir);
    const auto backend = createCpuBackend();
    const ForwardPass pass(*model, *backend);
    std::mt19937 engine(1);
    std::vector<ForwardRequest> requests;
    for (int n : o.tokens) {
        ForwardRequest& request = requests.emplace_back();  // every head, last logits
        request.ids = randomIds(n, shape.vocabSize, engine);
    }

    // [token count][round]: qkvlab then each peer every round, so drifting load hits all alike.
    std::vector<std::vector<double>> ours(o.tokens.size());
    std::vector<std::vector<std::vector<double>>> theirs(
        std::size(kPeers), std::vector<std::vector<double>>(o.tokens.size()));
    for (int round = 0; round < o.rounds; ++round) {
        for (size_t i = 0; i < requests.size(); ++i) {
            std::cerr << "round " << round + 1 << ": qkvlab " << o.tokens[i] << " tokens ...\n";
            // A warm-up every round, as the PyTorch script does per run: the peers' float32
            // copies and attentions take gigabytes between rounds, which can evict the weights'
            // pages or caches.
            pass.run(requests[i]);
            const auto start = Clock::now();
            pass.run(requests[i]);
            ours[i].push_back(seconds(start));
        }
        for (size_t p = 0; p < std::size(kPeers) && o.torch; ++p) {
            std::cerr << "round " << round + 1 << ": " << kPeers[p].name << " ...\n";
            const nlohmann::json times = torchRound(o, dir, kPeers[p]);
            for (size_t i = 0; i < requests.size() && times.is_object(); ++i)
                theirs[p][i].push_back(times.at(std::to_string(o.tokens[i])).get<double>());
        }
    }

    std::printf(
        "\nLlama-3.2-1B shape (16 layers, 32 query / 8 KV heads, d_model 2048, rope llama3 x32, "
        "tied, bf16): forward with every head's attention and the last position's logits, "
        "median of %d rounds\n\n",
        o.rounds);
    std::printf("%-34s %12s %12s %10s   %s\n", "measure", "qkvlab", "peer", "ratio", "target");
    bool met = true;
    for (size_t i = 0; i < o.tokens.size(); ++i) {
        const double mine = median(ours[i]);
        for (size_t p = 0; p < std::size(kPeers); ++p) {
            const std::string measure = std::to_string(o.tokens[i]) + " tok vs " + kPeers[p].name;
            if (theirs[p][i].size() != ours[i].size()) {
                std::printf("%-34s %9.1f ms %12s %10s   -\n", measure.c_str(), mine * 1e3, "-",
                            "-");
                continue;
            }
            std::vector<double> ratios;
            for (size_t r = 0; r < ours[i].size(); ++r)
                ratios.push_back(ours[i][r] / theirs[p][i][r]);
            const double ratio = median(ratios);
            met &= ratio <= kTorchRatioTarget;
            std::printf("%-34s %9.1f ms %9.1f ms %9.3fx   <= %.1fx: %s\n", measure.c_str(),
                        mine * 1e3, median(theirs[p][i]) * 1e3, ratio, kTorchRatioTarget,
                        ratio <= kTorchRatioTarget ? "met" : "MISSED");
        }
    }
    return met ? 0 : 1;
}

}  // namespace qkv::bench
