#include "core/train/evaluation.h"

#include <algorithm>
#include <cmath>

#include "core/train/corpus.h"
#include "core/util/error.h"

namespace qkv::train {

Evaluation evaluateStream(const ForwardPass& forward, const std::vector<int>& stream,
                          const std::atomic<bool>* cancel,
                          const std::function<void(std::size_t, std::size_t)>& onWindow) {
    if (stream.size() < 2) throw Error("the text to evaluate has fewer than two tokens");
    const Architecture& config = forward.model().architecture();
    if (!forward.model().hasLogits()) throw Error(forward.model().name() + " has no output head");
    const std::vector<Window> windows = evaluationWindows(stream.size(), config.contextLength);
    double total = 0.0;
    Evaluation result;
    for (std::size_t w = 0; w < windows.size(); ++w) {
        if (cancel && cancel->load()) throw Cancelled();
        const Window& window = windows[w];
        ForwardRequest request;
        request.ids.assign(stream.begin() + window.begin,
                           stream.begin() + window.begin + window.length);
        request.capture.scores = false;
        request.capture.probabilities = false;
        request.logits = LogitsMode::AllPositions;
        const ForwardResult out = forward.run(request);
        for (int t = 0; t < window.length; ++t) {
            const auto row = out.logits.row(t);
            const float maxValue = row.maxCoeff();
            double sum = 0.0;
            for (int j = 0; j < row.size(); ++j)
                sum += std::exp(static_cast<double>(row[j] - maxValue));
            const int target = stream[window.begin + t + 1];
            if (target < 0 || target >= row.size())
                throw Error("token id " + std::to_string(target) + " is outside the vocabulary");
            total += maxValue + std::log(sum) - row[target];
        }
        result.tokens += window.length;
        if (onWindow) onWindow(w + 1, windows.size());
    }
    result.loss = total / result.tokens;
    result.perplexity = std::exp(result.loss);
    return result;
}

}  // namespace qkv::train
