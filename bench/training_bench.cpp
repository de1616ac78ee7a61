#include "bench/training_bench.h"

#include <cstdio>
#include <iostream>

#include "core/train/trainer.h"

namespace qkv::bench {

ReportTable trainingTable(double peakGflops) {
    ReportTable table{
        "Training lab: default model shape (4 layers, 4 heads, d_model 128, context 128, vocab "
        "706, batch 16 x 128 tokens), every core",
        {"tying", "tokens/s", "GFLOP/s", "of SGEMM", ""},
        {}};
    for (const char* tying : train::AttentionTying::names()) {
        std::cerr << "measuring training throughput (" << tying << ") ...\n";
        train::TrainingOptions options;
        options.shape.vocab = 706;
        options.shape.tying = train::AttentionTying::parse(tying);
        train::trainSteps(options, 2);  // warm-up: thread pool, first touch
        const auto r = train::trainSteps(options, 20);
        char tokens[32], rate[32], share[16];
        std::snprintf(tokens, sizeof tokens, "%.0f", r.tokensPerSecond);
        std::snprintf(rate, sizeof rate, "%.1f", r.gflopsPerSecond);
        std::snprintf(share, sizeof share, "%.0f%%", 100.0 * r.gflopsPerSecond / peakGflops);
        table.rows.push_back({"train " + std::string(tying),
                              tokens,
                              rate,
                              share,
                              "",
                              {{"tokens_per_second", r.tokensPerSecond},
                               {"gflops", r.gflopsPerSecond},
                               {"of_sgemm", r.gflopsPerSecond / peakGflops}}});
    }
    return table;
}

}  // namespace qkv::bench
