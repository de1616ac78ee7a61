#include "core/model/greedy_decode.h"

namespace qkv {

std::vector<int> greedyDecode(const ForwardPass& pass, const std::vector<int>& sourceIds,
                              int maxTokens, const std::atomic<bool>* cancel) {
    const Architecture& c = pass.model().architecture();
    if (!c.isEncoderDecoder())
        throw Error(pass.model().name() + " is not an encoder-decoder model: nothing to decode");
    ForwardRequest request;
    request.ids = sourceIds;
    request.targetIds = {c.decoderStartToken};
    request.capture.scores = request.capture.probabilities = false;
    request.logits = LogitsMode::LastPosition;
    request.cancel = cancel;
    std::vector<int> written;
    while (static_cast<int>(written.size()) < maxTokens &&
           static_cast<int>(request.targetIds.size()) < c.contextLength) {
        const RowMatrixXf logits = pass.run(request).logits;
        if (logits.size() == 0) break;
        int best = -1;
        for (int id = 0; id < logits.cols(); ++id)
            if (id != c.decoderStartToken && (best < 0 || logits(0, id) > logits(0, best)))
                best = id;
        if (best < 0 || best == c.eosToken) break;
        written.push_back(best);
        request.targetIds.push_back(best);
    }
    return written;
}

}  // namespace qkv
