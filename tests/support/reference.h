#pragma once
// Reader for the shared models' hf_reference.json files (outputs of Hugging Face transformers,
// computed in float64): token ids, attention probabilities per configuration, top-5 logits.
#include <Eigen/Core>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/model/attention_trace.h"
#include "core/model/forward.h"
#include "core/model/model.h"
#include "tests/support/fixture_writer.h"

namespace qkv::test {

// Row-major matrix of one head's attention probabilities: queries x keys (square but in
// cross-attention).
struct ReferenceMatrix {
    int size = 0;  // rows
    int cols = 0;
    std::vector<double> values;
    double at(int row, int col) const { return values[static_cast<size_t>(row) * cols + col]; }
};

// [layer][head]: softmax probabilities, or a linear layer's implicit attention.
using ReferenceAttentions = std::vector<std::vector<ReferenceMatrix>>;

struct ReferenceResult {
    ReferenceAttentions attentions;  // decoder-only and encoder-only models, else the encoder's
    ReferenceAttentions decoderAttentions;  // encoder-decoder models
    ReferenceAttentions crossAttentions;    // encoder-decoder models: target x source
    // Falcon-H1: the implicit attention of the Mamba-2 mixer beside each layer's attention
    // (implicit_attention where attentions is given too); empty for other models.
    ReferenceAttentions besideAttentions;
    // Gated attention: [layer][head][query] mean σ(gate); a layer without one is empty.
    std::vector<std::vector<std::vector<double>>> outputGates;
    // Mamba-2 layers' skip D per head (mamba2_D); empty for other layers.
    std::vector<std::vector<double>> skips;
    // Short-convolution layers' taps [layer][channel][tap] (short_conv_taps); empty elsewhere.
    std::vector<std::vector<std::vector<double>>> taps;
    // DeepSeek sparse attention: [layer][query] the keys the indexer kept (selected_keys), and
    // the attention of the same model re-run with every causal key kept (dense_attentions).
    std::vector<std::vector<std::vector<int>>> selectedKeys;
    ReferenceAttentions denseAttentions;
    std::vector<int> top5Ids;
    std::vector<double> top5Logits;
};

struct ReferenceSentence {
    std::string text;
    std::vector<int> ids;
    std::vector<std::string> tokens;
    std::vector<int> decoderIds;  // encoder-decoder models: the decoder's input
    std::map<std::string, ReferenceResult>
        results;  // "original", "shared-qk", "tied-kv", "single-w"
};

struct ModelReference {
    std::string model;
    std::string tokenizer;  // how the ids were made: a tokenizer, or "no tokenizer file: ..."
    bool hasTokenizerFiles() const { return tokenizer.rfind("no tokenizer file", 0) != 0; }
    // Why the reference gives only some configurations ("" when it gives all four).
    std::string configurationsNote;
    std::vector<ReferenceSentence> sentences;
};

ModelReference loadReference(const std::filesystem::path& jsonFile);
// The same from an hf_reference object already parsed (GGUF references hold one per file).
ModelReference parseReference(const nlohmann::json& doc);

// The largest |ours - reference| attention probability over every layer, head and cell; a shape
// mismatch fails the test (and counts as 1).
double worstDifference(const AttentionTrace& trace, const ReferenceAttentions& expected);
// The same for the implicit maps of the mixers beside the layers' attention (Falcon-H1).
double worstBesideDifference(const AttentionTrace& trace, const ReferenceAttentions& expected);

// Runs every sentence of `reference` through `model` on the CPU and checks every head's attention
// (the "original" configuration) and the last-token top-5 logits within the tolerances.
// A hybrid's details beside its maps: gated attention's mean σ(gate) per head and query (within
// `gateTolerance`), Mamba-2's skips and short convolutions' taps (within the reference's digits),
// a sparse attention's kept keys (exactly).
void expectMixerDetails(const AttentionTrace& trace, const ReferenceResult& expected,
                        double gateTolerance);

void expectOriginalResults(const Model& model, const ModelReference& reference,
                           double attentionTolerance, double logitTolerance);

// A folder in `into` holding `folder`'s weights (linked) and its config.json as `edit` leaves it:
// the configuration a converted file's metadata should amount to.
std::filesystem::path folderWithEditedConfig(const std::filesystem::path& folder,
                                             const std::filesystem::path& into,
                                             const std::function<void(nlohmann::json&)>& edit);

// Runs one sentence of ids through both models on the CPU and checks that every head's attention
// and every position's logits agree within the tolerances.
void expectSameResults(const Model& a, const Model& b, float attentionTolerance,
                       float logitTolerance);

// The folders directly under `dir` that hold `file`, sorted by name.
std::vector<std::string> foldersHolding(const std::filesystem::path& dir, const std::string& file);

// The model folders under shared/models that carry an hf_reference.json.
std::vector<std::string> sharedModelNames(const std::filesystem::path& sharedDir);

// The tiny GPT-2 fixture (writeTinyGpt2 with `spec`) run on the CPU over kTinyGpt2Ids under
// `config`, for tests that check it against a computation of their own.
inline const std::vector<int> kTinyGpt2Ids = {3, 17, 42, 5, 5, 11, 0, 49, 23};
ForwardResult runTinyGpt2(const TinyModelSpec& spec, const WConfiguration& config = {});

// A fixture tensor in double precision: a [rows, cols] matrix, or a vector as one row.
Eigen::MatrixXd toMatrix(const FixtureTensor& t);
Eigen::RowVectorXd toRow(const FixtureTensor& t);

}  // namespace qkv::test
