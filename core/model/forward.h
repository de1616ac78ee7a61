#pragma once
// The forward pass with attention capture, written once for every architecture against the
// Backend interface: text ids -> embeddings -> per layer (norm -> Q, K, V under the chosen
// configuration -> scores -> mask -> softmax -> A V -> output projection -> residual -> MLP) ->
// logits. The W configuration is applied by choosing which projection fills each slot, so no
// weight is ever copied.
#include <atomic>
#include <memory>
#include <vector>

#include "core/model/attention_trace.h"
#include "core/model/device_model.h"
#include "core/model/model.h"
#include "core/model/w_configuration.h"
#include "core/util/error.h"
#include "core/util/progress.h"

namespace qkv {

enum class LogitsMode { None, LastPosition, AllPositions };

struct ForwardRequest {
    std::vector<int> ids;         // an encoder-decoder model's source: its encoder's input
    std::vector<int> tokenTypes;  // BERT segment ids; all zero when empty
    // Encoder-decoder models: the decoder's input (the target, from the decoder start token
    // on); empty: the decoder start token alone.
    std::vector<int> targetIds;
    WConfiguration config;
    CaptureSelection capture;
    LogitsMode logits = LogitsMode::LastPosition;
    const std::atomic<bool>* cancel = nullptr;  // checked between layers
    Progress progress;  // after each layer is queued (on the CPU backend: computed)
};

struct ForwardResult {
    AttentionTrace trace;         // the stack the ids enter: the model's, or an encoder's
    AttentionTrace decoderTrace;  // encoder-decoder models: the decoder's self-attention
    AttentionTrace crossTrace;    // encoder-decoder models: target queries x source keys
    RowMatrixXf logits;           // 1 x vocab (last position), n x vocab (the decoder's, for an
                                  // encoder-decoder model), or empty
};

// A layer's q, k and v as its attention used them, left on the backend (a GPU's memory): a
// later forward over the same first tokens copies their rows there instead of computing them
// (prefix reuse). Released on the thread that uses the backend.
struct LayerVectors {
    std::unique_ptr<Tensor> query, key, value;
};
using KeptVectors = std::vector<LayerVectors>;

struct KeptPrefix;  // core/model/layer_runner.h

class ForwardPass {
  public:
    // Binds the model's weights to the backend (a GPU backend uploads them here). Both must
    // outlive this object.
    ForwardPass(const Model& model, Backend& backend);

    // Throws qkv::Error for empty input, ids outside the vocabulary, sequences longer than the
    // model's context, a request whose capture would not fit in available memory
    // (forwardMemoryBytes) and weights files that changed on disk (Model::checkUnchanged).
    // `keep`, when given, receives each layer's q, k and v for a later runAfter().
    ForwardResult run(const ForwardRequest& request, KeptVectors* keep = nullptr) const;

    // Prefix reuse (ReusingForward, core/model/prefix_reuse.h): run(request)'s result, computing
    // only the tokens from `kept` on. `earlier` is a result of this pass for ids whose first
    // `kept` equal the request's, under the same configuration, capture and logits, and
    // `earlierVectors` what that forward kept; their rows of those tokens are taken over.
    // Causal stacks without position bias or token types only.
    ForwardResult runAfter(const ForwardRequest& request, const ForwardResult& earlier,
                           const KeptVectors& earlierVectors, int kept,
                           KeptVectors* keep = nullptr) const;
    // Whether runAfter() may keep a prefix for this request on this model.
    bool canKeepPrefix(const ForwardRequest& request) const;

    const Model& model() const { return m_model; }
    Backend& backend() const { return m_backend; }

  private:
    ForwardResult compute(const ForwardRequest& request, const ForwardResult* earlier,
                          const KeptPrefix& prefix) const;

    const Model& m_model;
    Backend& m_backend;
    DeviceModel m_device;
};

// Checks a request's ids against a model; the same checks run() makes, for early errors.
void validateIds(const Architecture& config, const std::vector<int>& ids);

// Host memory a request needs at its peak: the trace (q, k, v of every layer, and n x n scores
// and probabilities of each captured head: n²·heads·layers·8 bytes for a full capture), the
// logits and one layer's activations (weights excluded).
std::uint64_t forwardMemoryBytes(const Architecture& config, const ForwardRequest& request);

}  // namespace qkv
