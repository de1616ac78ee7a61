#include "tests/support/reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/backend/backend.h"
#include "core/model/forward.h"

namespace qkv::test {
namespace {

std::vector<ReferenceMatrix> readHeads(const nlohmann::json& layer) {
    std::vector<ReferenceMatrix> heads;
    for (const auto& head : layer) {
        ReferenceMatrix m;
        m.size = static_cast<int>(head.size());
        m.cols = m.size > 0 ? static_cast<int>(head[0].size()) : 0;
        for (const auto& row : head)
            for (const auto& v : row) m.values.push_back(v.get<double>());
        heads.push_back(std::move(m));
    }
    return heads;
}

// Per layer: the softmax probabilities, or where a layer has none (null) its implicit attention
// (hybrid models' implicit_attention).
ReferenceAttentions readAttentions(const nlohmann::json& result, const char* key) {
    ReferenceAttentions layers;
    if (!result.contains(key)) return layers;
    const nlohmann::json& all = result.at(key);
    for (size_t l = 0; l < all.size(); ++l)
        layers.push_back(readHeads(all[l].is_null() && result.contains("implicit_attention")
                                       ? result.at("implicit_attention").at(l)
                                       : all[l]));
    return layers;
}

// The implicit attention of layers that have softmax attention too (Falcon-H1).
ReferenceAttentions readBesideAttentions(const nlohmann::json& result) {
    ReferenceAttentions layers;
    if (!result.contains("implicit_attention") || !result.contains("attentions")) return layers;
    const nlohmann::json& implicit = result.at("implicit_attention");
    const nlohmann::json& softmax = result.at("attentions");
    bool any = false;
    for (size_t l = 0; l < implicit.size(); ++l) {
        const bool beside = !implicit[l].is_null() && !softmax.at(l).is_null();
        layers.push_back(beside ? readHeads(implicit[l]) : std::vector<ReferenceMatrix>());
        any |= beside;
    }
    return any ? layers : ReferenceAttentions();
}

}  // namespace

ModelReference loadReference(const std::filesystem::path& jsonFile) {
    std::ifstream in(jsonFile);
    if (!in) throw std::runtime_error("cannot read " + jsonFile.string());
    return parseReference(nlohmann::json::parse(in));
}

ModelReference parseReference(const nlohmann::json& doc) {
    ModelReference ref;
    ref.model = doc.at("model").get<std::string>();
    ref.tokenizer = doc.value("tokenizer", std::string());
    if (doc.contains("configurations") && doc["configurations"].is_object())
        ref.configurationsNote = doc["configurations"].value("note", std::string());
    for (const auto& s : doc.at("sentences")) {
        ReferenceSentence sentence;
        sentence.text = s.at("text").get<std::string>();
        sentence.ids = s.at("input_ids").get<std::vector<int>>();
        sentence.tokens = s.at("tokens").get<std::vector<std::string>>();
        if (s.contains("decoder_input_ids"))
            sentence.decoderIds = s.at("decoder_input_ids").get<std::vector<int>>();
        for (auto it = s.at("results").begin(); it != s.at("results").end(); ++it) {
            ReferenceResult result;
            result.attentions = readAttentions(it.value(), "attentions");
            if (result.attentions.empty())
                result.attentions = readAttentions(it.value(), "encoder_attentions");
            result.decoderAttentions = readAttentions(it.value(), "decoder_attentions");
            result.crossAttentions = readAttentions(it.value(), "cross_attentions");
            result.besideAttentions = readBesideAttentions(it.value());
            if (it.value().contains("output_gate"))
                for (const auto& layer : it.value().at("output_gate"))
                    result.outputGates.push_back(
                        layer.is_null() ? std::vector<std::vector<double>>()
                                        : layer.get<std::vector<std::vector<double>>>());
            if (it.value().contains("mamba2_D"))
                for (const auto& layer : it.value().at("mamba2_D"))
                    result.skips.push_back(layer.is_null() ? std::vector<double>()
                                                           : layer.get<std::vector<double>>());
            if (it.value().contains("short_conv_taps"))
                for (const auto& layer : it.value().at("short_conv_taps"))
                    result.taps.push_back(layer.is_null()
                                              ? std::vector<std::vector<double>>()
                                              : layer.get<std::vector<std::vector<double>>>());
            if (it.value().contains("selected_keys"))
                result.selectedKeys = it.value()
                                          .at("selected_keys")
                                          .get<std::vector<std::vector<std::vector<int>>>>();
            result.denseAttentions = readAttentions(it.value(), "dense_attentions");
            const auto& top = it.value().at("last_token_top5");
            result.top5Ids = top.at("ids").get<std::vector<int>>();
            result.top5Logits = top.at("logits").get<std::vector<double>>();
            sentence.results.emplace(it.key(), std::move(result));
        }
        ref.sentences.push_back(std::move(sentence));
    }
    return ref;
}

std::vector<std::string> foldersHolding(const std::filesystem::path& dir, const std::string& file) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (std::filesystem::exists(entry.path() / file))
            names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<std::string> sharedModelNames(const std::filesystem::path& sharedDir) {
    return foldersHolding(sharedDir / "models", "hf_reference.json");
}

// The largest |ours - reference| over every layer, head and cell; a shape mismatch fails.
namespace {

// The largest difference of one layer's head matrices from the reference's.
double worstHeadDifference(int l, const std::vector<RowMatrixXf>& heads,
                           const std::vector<ReferenceMatrix>& expected) {
    double worst = 0.0;
    EXPECT_EQ(heads.size(), expected.size()) << "layer " << l;
    for (size_t h = 0; h < std::min(heads.size(), expected.size()); ++h) {
        const RowMatrixXf& a = heads[h];
        const auto& r = expected[h];
        if (a.rows() != r.size || a.cols() != r.cols) {
            ADD_FAILURE() << "layer " << l << " head " << h << ": " << a.rows() << "x" << a.cols()
                          << " against the reference's " << r.size << "x" << r.cols;
            return 1.0;
        }
        for (int i = 0; i < r.size; ++i)
            for (int j = 0; j < r.cols; ++j)
                worst = std::max(worst, std::abs(static_cast<double>(a(i, j)) - r.at(i, j)));
    }
    return worst;
}

}  // namespace

double worstDifference(const AttentionTrace& trace, const ReferenceAttentions& expected) {
    double worst = 0.0;
    EXPECT_EQ(trace.layerCount(), static_cast<int>(expected.size()));
    for (int l = 0; l < std::min<int>(trace.layerCount(), expected.size()); ++l)
        worst =
            std::max(worst, worstHeadDifference(l, trace.layers()[l].probabilities, expected[l]));
    return worst;
}

double worstBesideDifference(const AttentionTrace& trace, const ReferenceAttentions& expected) {
    double worst = 0.0;
    EXPECT_EQ(trace.layerCount(), static_cast<int>(expected.size()));
    for (int l = 0; l < std::min<int>(trace.layerCount(), expected.size()); ++l) {
        const std::vector<LayerTrace>& beside = trace.layers()[l].beside;
        EXPECT_EQ(beside.size(), 1u) << "layer " << l << " has no mixer beside its attention";
        if (beside.size() == 1)
            worst = std::max(worst, worstHeadDifference(l, beside[0].probabilities, expected[l]));
    }
    return worst;
}

void expectMixerDetails(const AttentionTrace& trace, const ReferenceResult& expected,
                        double gateTolerance) {
    for (size_t l = 0; l < expected.outputGates.size(); ++l)
        for (size_t h = 0; h < expected.outputGates[l].size(); ++h) {
            const std::vector<float> gate = trace.outputGate(l, h);
            ASSERT_EQ(gate.size(), expected.outputGates[l][h].size());
            for (size_t t = 0; t < gate.size(); ++t)
                EXPECT_NEAR(gate[t], expected.outputGates[l][h][t], gateTolerance)
                    << "output gate of layer " << l << " head " << h << " query " << t;
        }
    // Mamba-2's skip D per head, as the checkpoint stores it; the reference keeps 7 significant
    // digits of values up to about 2.5: 2e-6.
    for (size_t l = 0; l < expected.skips.size(); ++l) {
        const LayerTrace& layer = trace.layers()[l];
        const std::vector<float>& skip =
            layer.beside.empty() ? layer.skip : layer.beside.front().skip;
        ASSERT_EQ(skip.size(), expected.skips[l].size()) << "skip of layer " << l;
        for (size_t h = 0; h < skip.size(); ++h)
            EXPECT_NEAR(skip[h], expected.skips[l][h], 2e-6) << "layer " << l << " head " << h;
    }
    // A short convolution's taps as the checkpoint stores them; the reference keeps 7
    // significant digits of values up to about 2: 1e-6.
    for (size_t l = 0; l < expected.taps.size(); ++l) {
        const RowMatrixXf& taps = trace.layers()[l].taps;
        ASSERT_EQ(static_cast<size_t>(taps.rows()), expected.taps[l].size()) << "layer " << l;
        for (int c = 0; c < taps.rows(); ++c)
            for (int k = 0; k < taps.cols(); ++k)
                EXPECT_NEAR(taps(c, k), expected.taps[l][c].at(k), 1e-6)
                    << "taps of layer " << l << " channel " << c;
    }
    // The indexer's choice is discrete: the same keys or a wrong attention (the references have
    // no tie near the boundary, PROVENANCE-wave3-sparse.md).
    for (size_t l = 0; l < expected.selectedKeys.size(); ++l)
        EXPECT_EQ(trace.layers()[l].selectedKeys, expected.selectedKeys[l])
            << "keys kept in layer " << l;
}

void expectOriginalResults(const Model& model, const ModelReference& reference,
                           double attentionTolerance, double logitTolerance) {
    auto backend = createCpuBackend();
    ForwardPass pass(model, *backend);
    for (const auto& sentence : reference.sentences) {
        SCOPED_TRACE(sentence.text);
        ForwardRequest request;
        request.ids = sentence.ids;
        const ForwardResult result = pass.run(request);
        const auto& expected = sentence.results.at("original");
        EXPECT_LE(worstDifference(result.trace, expected.attentions), attentionTolerance);
        expectMixerDetails(result.trace, expected, attentionTolerance);
        ASSERT_EQ(result.logits.rows(), 1);
        for (size_t t = 0; t < expected.top5Ids.size(); ++t)
            EXPECT_NEAR(result.logits(0, expected.top5Ids[t]), expected.top5Logits[t],
                        logitTolerance)
                << "top-" << t + 1 << " logit, id " << expected.top5Ids[t];
    }
}

std::filesystem::path folderWithEditedConfig(const std::filesystem::path& folder,
                                             const std::filesystem::path& into,
                                             const std::function<void(nlohmann::json&)>& edit) {
    const auto edited = into / "folder";
    std::filesystem::create_directories(edited);
    std::filesystem::create_symlink(folder / "model.safetensors", edited / "model.safetensors");
    std::ifstream in(folder / "config.json");
    nlohmann::json config = nlohmann::json::parse(in);
    edit(config);
    std::ofstream(edited / "config.json") << config.dump();
    return edited;
}

void expectSameResults(const Model& a, const Model& b, float attentionTolerance,
                       float logitTolerance) {
    auto backend = createCpuBackend();
    ForwardRequest request;
    request.ids = {1, 17, 401, 33, 902, 250, 77, 5, 640, 12};
    request.logits = LogitsMode::AllPositions;
    const ForwardResult ours = ForwardPass(a, *backend).run(request);
    const ForwardResult theirs = ForwardPass(b, *backend).run(request);
    for (int l = 0; l < a.architecture().layers; ++l)
        for (int h = 0; h < a.architecture().heads; ++h)
            EXPECT_LE((ours.trace.probabilities(l, h) - theirs.trace.probabilities(l, h))
                          .cwiseAbs()
                          .maxCoeff(),
                      attentionTolerance)
                << "layer " << l << " head " << h;
    EXPECT_LE((ours.logits - theirs.logits).cwiseAbs().maxCoeff(), logitTolerance);
}

ForwardResult runTinyGpt2(const TinyModelSpec& spec, const WConfiguration& config) {
    TempDir dir;
    writeTinyGpt2(dir.path(), spec);
    auto model = Model::open(dir.path());
    auto backend = createCpuBackend();
    ForwardRequest request;
    request.ids = kTinyGpt2Ids;
    request.config = config;
    return ForwardPass(*model, *backend).run(request);
}

Eigen::MatrixXd toMatrix(const FixtureTensor& t) {
    Eigen::MatrixXd m(t.shape[0], t.shape[1]);
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) m(r, c) = t.values[r * m.cols() + c];
    return m;
}

Eigen::RowVectorXd toRow(const FixtureTensor& t) {
    Eigen::RowVectorXd v(t.values.size());
    for (Eigen::Index i = 0; i < v.size(); ++i) v(i) = t.values[i];
    return v;
}

}  // namespace qkv::test
