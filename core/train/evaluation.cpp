#include "core/train/evaluation.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/train/corpus.h"
#include "core/util/error.h"

namespace qkv::train {

Evaluation evaluateStream(const ForwardPass& forward, const std::vector<int>& stream,
                          const WConfiguration& config, const std::atomic<bool>* cancel,
                          const std::function<void(std::size_t, std::size_t)>& onWindow) {
    if (stream.size() < 2) throw Error("the text to evaluate has fewer than two tokens");
    const Architecture& architecture = forward.model().architecture();
    if (!forward.model().hasLogits()) throw Error(forward.model().name() + " has no output head");
    const std::vector<Window> windows =
        evaluationWindows(stream.size(), architecture.contextLength);
    double total = 0.0;
    Evaluation result;
    for (std::size_t w = 0; w < windows.size(); ++w) {
        if (cancel && cancel->load()) throw Cancelled();
        const Window& window = windows[w];
        ForwardRequest request;
        request.ids.assign(stream.begin() + window.begin,
                           stream.begin() + window.begin + window.length);
        request.config = config;
        request.capture.scores = false;
        request.capture.probabilities = false;
        request.logits = LogitsMode::AllPositions;
        const ForwardResult out = forward.run(request);
        const std::vector<int> targets(stream.begin() + window.begin + 1,
                                       stream.begin() + window.begin + window.length + 1);
        for (double logp :
             pickLogProbabilities(out.logits.data(), static_cast<int>(out.logits.cols()), targets))
            total -= logp;
        result.tokens += window.length;
        if (onWindow) onWindow(w + 1, windows.size());
    }
    result.loss = total / result.tokens;
    result.perplexity = std::exp(result.loss);
    return result;
}

RelationScore evaluateRelations(const ForwardPass& forward,
                                const std::vector<TokenizedRelation>& relations,
                                const WConfiguration& config) {
    const int context = forward.model().architecture().contextLength;
    return scoreRelations(relations, [&](const std::vector<int>& ids) {
        if (static_cast<int>(ids.size()) > context + 1)
            throw Error("a relation probe sentence is longer than the model's context");
        ForwardRequest request;
        request.ids.assign(ids.begin(), ids.end() - 1);
        request.config = config;
        request.capture.scores = false;
        request.capture.probabilities = false;
        request.logits = LogitsMode::AllPositions;
        const ForwardResult out = forward.run(request);
        return pickLogProbabilities(out.logits.data(), static_cast<int>(out.logits.cols()),
                                    std::vector<int>(ids.begin() + 1, ids.end()));
    });
}

WConfiguration trainedConfiguration(const std::filesystem::path& modelFolder) {
    std::ifstream in(modelFolder / "config.json");
    const auto config = nlohmann::json::parse(in, nullptr, false);
    if (config.is_discarded() || !config.contains("qkvlab_attention_tying") ||
        !config["qkvlab_attention_tying"].is_string())
        return {};
    try {
        return WConfiguration::parse(config["qkvlab_attention_tying"].get<std::string>());
    } catch (const Error&) {
        return {};
    }
}

}  // namespace qkv::train
