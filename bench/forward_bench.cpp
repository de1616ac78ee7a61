#include "bench/forward_bench.h"

#include <random>

#include "bench/app_requests.h"
#include "bench/bench_common.h"
#include "core/model/forward.h"
#include "gpu/backend_factory.h"

namespace qkv::bench {
namespace {

// Median of `repeats` forwards after a warm-up (the first also touches the mapped weights).
double medianForward(const ForwardPass& pass, const ForwardRequest& request, int repeats) {
    pass.run(request);
    std::vector<double> times;
    for (int r = 0; r < repeats; ++r) {
        const auto start = Clock::now();
        pass.run(request);
        times.push_back(seconds(start));
    }
    return median(times);
}

}  // namespace

BackendRun measureBackend(const std::string& choice, const Model& model, const Options& o) {
    auto backend = createBackend(choice);
    BackendRun run;
    run.name = backend->name();
    const auto start = Clock::now();
    ForwardPass pass(model, *backend);
    run.bindSeconds = seconds(start);
    const Architecture& config = model.architecture();
    std::mt19937 engine(1);
    for (int n : o.tokens) {
        ForwardRequest request;
        request.ids = randomIds(n, config.vocabSize, engine);
        resetPeak();
        run.forwardSeconds.push_back(medianForward(pass, request, o.repeats));
        run.peakRss.push_back(peakRss());
        const ForwardRequest app = appRequest(config, request.ids);
        run.oneHeadSeconds.push_back(capturesOneHead(app) ? medianForward(pass, app, o.repeats)
                                                          : 0.0);
    }
    std::mt19937 typing(2);
    for (int n : o.keystrokeTokens)
        run.keystrokes.push_back(measureKeystrokes(pass, randomIds(n, config.vocabSize, typing),
                                                   o.keystrokes, o.repeats));
    return run;
}

}  // namespace qkv::bench
