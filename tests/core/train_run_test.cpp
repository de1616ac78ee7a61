// Training end to end on a tiny model: the loss goes down, runs are reproducible, the saved
// folder opens with Model::open and the inference forward reproduces the training forward, tied
// matrices are saved bytewise identical, and an interrupted run keeps its last checkpoint.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/io/safetensors.h"
#include "core/model/forward.h"
#include "core/model/model.h"
#include "core/model/model_family.h"
#include "core/train/corpus.h"
#include "core/train/evaluation.h"
#include "core/train/gpt2_network.h"
#include "core/train/story_grammar.h"
#include "core/train/training_job.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/tyings.h"

namespace qkv::train {
namespace {

// Stories as a corpus file: one paragraph each.
std::filesystem::path writeStoryCorpus(const std::filesystem::path& dir, int stories) {
    const auto path = dir / "stories.txt";
    std::ofstream out(path);
    for (const std::string& story : generateStories(11, stories)) out << story << "\n\n";
    return path;
}

TrainingJob tinyJob(const std::filesystem::path& corpus, const std::filesystem::path& out,
                    const std::string& tying) {
    TrainingJob job;
    job.corpus = corpus.string();
    job.outputDir = out;
    job.vocabSize = 400;
    TrainingOptions& o = job.options;
    o.shape.layers = 2;
    o.shape.heads = 2;
    o.shape.dModel = 32;
    o.shape.context = 32;
    o.shape.tying = AttentionTying::parse(tying);
    o.batchSize = 8;
    o.steps = 30;
    o.evalInterval = 10;
    o.threads = 2;
    o.optimizer.learningRate = 1e-2;
    o.optimizer.finalLearningRate = 1e-3;
    o.optimizer.warmupSteps = 5;
    return job;
}

class TrainRun : public ::testing::Test {
  protected:
    test::TempDir dir;
    std::filesystem::path corpus = writeStoryCorpus(dir.path(), 300);
};

TEST_F(TrainRun, ShortRunLowersTheLoss) {
    const JobResult result = runTrainingJob(tinyJob(corpus, dir.path() / "m", "learned"));
    // Step 0 (before any update), then every 3 steps: at least 10 points however short the run.
    ASSERT_EQ(result.run.log.size(), 11u);
    EXPECT_EQ(result.run.log.front().step, 0);
    EXPECT_EQ(result.run.log[1].step, 3);
    const Architecture config = loadArchitecture(dir.path() / "m" / "config.json");
    const double uniform = std::log(config.vocabSize);
    // From ln(vocab) (about 6) at initialisation to well under the uniform guess in 30 steps.
    EXPECT_LT(result.run.log.back().valLoss, uniform - 1.0);
    EXPECT_LT(result.run.log.back().valLoss, result.run.log.front().valLoss);
    EXPECT_LT(result.run.log.back().trainLoss, result.run.log.front().trainLoss);
}

TEST_F(TrainRun, SameSeedGivesTheSameLossCurve) {
    const JobResult a = runTrainingJob(tinyJob(corpus, dir.path() / "a", "shared-qk"));
    const JobResult b = runTrainingJob(tinyJob(corpus, dir.path() / "b", "shared-qk"));
    TrainingJob other = tinyJob(corpus, dir.path() / "c", "shared-qk");
    other.options.seed = 2;
    const JobResult c = runTrainingJob(other);
    ASSERT_EQ(a.run.log.size(), b.run.log.size());
    for (size_t i = 0; i < a.run.log.size(); ++i) {
        EXPECT_EQ(a.run.log[i].trainLoss, b.run.log[i].trainLoss);
        EXPECT_EQ(a.run.log[i].valLoss, b.run.log[i].valLoss);
    }
    EXPECT_EQ(a.run.params, b.run.params);
    EXPECT_NE(a.run.log.back().valLoss, c.run.log.back().valLoss);
}

TEST_F(TrainRun, TrainingLogHasTheDocumentedFields) {
    runTrainingJob(tinyJob(corpus, dir.path() / "m", "tied-kv"));
    std::ifstream in(dir.path() / "m" / "training_log.json");
    const auto log = nlohmann::json::parse(in);
    EXPECT_EQ(log["seed"], 1);
    EXPECT_EQ(log["config"]["attention"], "tied-kv");
    EXPECT_EQ(log["finished"], true);
    ASSERT_EQ(log["steps"].size(), 11u);
    for (const auto& entry : log["steps"])
        for (const char* key : {"step", "train_loss", "val_loss", "tokens_per_s", "learning_rate",
                                "attention_entropy", "grad_norm_q", "grad_norm_k"})
            EXPECT_TRUE(entry.contains(key)) << key;
    EXPECT_EQ(log["steps"].front()["step"], 0);
    EXPECT_EQ(log["steps"].back()["step"], 30);
    EXPECT_EQ(log["config"]["eval_interval"], 3);
    // A corpus file has no relation probe: no relation fields rather than made-up ones.
    EXPECT_FALSE(log["final"].contains("relation_accuracy"));
}

// Both forwards in float: the training network and ForwardPass on the CPU backend differ only
// in the order of operations, so their logits agree to float rounding.
class TrainedModel : public TrainRun, public ::testing::WithParamInterface<const char*> {};

TEST_P(TrainedModel, InferenceForwardReproducesTheTrainingForward) {
    const TrainingJob job = tinyJob(corpus, dir.path() / "m", GetParam());
    const JobResult result = runTrainingJob(job);
    auto model = Model::open(job.outputDir);
    ASSERT_NE(model->tokenizer(), nullptr) << model->tokenizerError();
    const ModelShape& shape = job.options.shape;
    EXPECT_EQ(model->architecture().layers, shape.layers);
    EXPECT_EQ(model->architecture().dModel, shape.dModel);

    const std::vector<int> stream = tokenStream(*model->tokenizer(), fileCorpus(corpus).validation);
    ASSERT_GT(stream.size(), static_cast<size_t>(shape.context) + 1);
    const std::vector<int> ids(stream.begin(), stream.begin() + shape.context);
    const std::vector<int> targets(stream.begin() + 1, stream.begin() + shape.context + 1);

    ThreadPool pool(1);
    ModelShape trained = shape;
    trained.vocab = model->architecture().vocabSize;
    Gpt2Network<float> network(trained, pool);
    network.forward(result.run.params.data(), ids.data(), targets.data(), 1, shape.context);

    auto backend = createCpuBackend();
    ForwardPass forward(*model, *backend);
    // scale-outside and shared-qk-reformer train and run under the configurations of the same
    // names; the tyings' weights carry their tying, so those run under learned.
    const WConfiguration config = trainedConfiguration(job.outputDir);
    EXPECT_EQ(config.scaleOutside, job.options.shape.tying.scaleOutside);
    EXPECT_EQ(config.maskSelf, job.options.shape.tying.reformer);
    ForwardRequest request;
    request.ids = ids;
    request.config = config;
    request.logits = LogitsMode::AllPositions;
    const ForwardResult out = forward.run(request);
    ASSERT_EQ(out.logits.rows(), shape.context);
    ASSERT_EQ(out.logits.cols(), trained.vocab);
    double worst = 0, largest = 0;
    for (int i = 0; i < out.logits.rows(); ++i)
        for (int j = 0; j < out.logits.cols(); ++j) {
            const double a = network.logits()[static_cast<size_t>(i) * trained.vocab + j];
            worst = std::max(worst, std::abs(a - out.logits(i, j)));
            largest = std::max(largest, std::abs(a));
        }
    RecordProperty("max_abs_logit_difference", std::to_string(worst));
    EXPECT_LT(worst, 1e-5) << "largest logit " << largest;  // measured: about 1e-6

    // `evaluate` (inference forward) and training validation score the same windows.
    const Evaluation evaluation = evaluateStream(
        forward, tokenStream(*model->tokenizer(), fileCorpus(corpus).validation), config);
    EXPECT_NEAR(evaluation.loss, result.run.log.back().valLoss, 1e-5);
}

TEST_P(TrainedModel, TiedMatricesAreSavedBytewiseIdentical) {
    const TrainingJob job = tinyJob(corpus, dir.path() / "m", GetParam());
    runTrainingJob(job);
    const AttentionTying& tying = job.options.shape.tying;
    SafetensorsFile file(job.outputDir / "model.safetensors");
    EXPECT_EQ(file.metadata().at("qkvlab_attention_tying"), tying.name);
    const int d = job.options.shape.dModel;
    if (tying.fullBilinear) {  // no c_attn to fuse into: its sources as trained
        EXPECT_EQ(file.tensors().at("h.0.attn.sources.weight").shape,
                  (std::vector<std::int64_t>{d, (job.options.shape.heads + 1) * d}));
        return;
    }
    for (int l = 0; l < job.options.shape.layers; ++l) {
        const std::string p = "h." + std::to_string(l) + ".attn.c_attn.";
        const TensorInfo& w = file.tensors().at(p + "weight");
        const TensorInfo& b = file.tensors().at(p + "bias");
        ASSERT_EQ(w.shape, (std::vector<std::int64_t>{d, 3 * d}));
        auto sameColumns = [&](int s, int t) {
            const float* data = reinterpret_cast<const float*>(w.data);
            for (int r = 0; r < d; ++r)
                if (std::memcmp(data + r * 3 * d + s * d, data + r * 3 * d + t * d,
                                sizeof(float) * d) != 0)
                    return false;
            const float* bias = reinterpret_cast<const float*>(b.data);
            return std::memcmp(bias + s * d, bias + t * d, sizeof(float) * d) == 0;
        };
        for (int s = 0; s < 3; ++s)
            for (int t = s + 1; t < 3; ++t)
                EXPECT_EQ(sameColumns(s, t), tying.slotSource[s] == tying.slotSource[t])
                    << p << " slots " << s << ", " << t;
    }
}

INSTANTIATE_TEST_SUITE_P(Tyings, TrainedModel, test::allTyings(), test::tyingTestName);

TEST_F(TrainRun, CancelledRunKeepsTheLastCompleteCheckpoint) {
    std::atomic<bool> cancel{false};
    JobCallbacks callbacks;
    callbacks.training.cancel = &cancel;
    callbacks.training.onStep = [&](const StepProgress& p) {
        if (p.step == 14) cancel = true;
    };
    const TrainingJob job = tinyJob(corpus, dir.path() / "m", "learned");
    const JobResult result = runTrainingJob(job, callbacks);
    EXPECT_TRUE(result.run.cancelled);
    EXPECT_EQ(result.run.stepsDone, 14);
    ASSERT_TRUE(result.checkpointStep);
    EXPECT_EQ(*result.checkpointStep, 12);  // checkpoints every 3 steps (10 points in 30 steps)
    EXPECT_EQ(SafetensorsFile(job.outputDir / "model.safetensors").metadata().at("qkvlab_step"),
              "12");
    std::ifstream in(job.outputDir / "training_log.json");
    const auto log = nlohmann::json::parse(in);
    EXPECT_EQ(log["completed_steps"], 12);
    EXPECT_EQ(log["finished"], false);
    EXPECT_NO_THROW(Model::open(job.outputDir));
    // No temporary files are left behind.
    for (const auto& entry : std::filesystem::directory_iterator(job.outputDir))
        EXPECT_NE(entry.path().filename().string()[0], '.') << entry.path();
}

TEST_F(TrainRun, UnwritableOutputFolderIsAnError) {
    { std::ofstream(dir.path() / "file") << "x"; }
    EXPECT_THROW(runTrainingJob(tinyJob(corpus, dir.path() / "file" / "m", "learned")), Error);
}

TEST(TrainOptions, BadShapesAreRejected) {
    ModelShape shape;
    shape.vocab = 10;
    shape.dModel = 30;
    shape.heads = 4;
    EXPECT_THROW(shape.validate(), Error);
    EXPECT_THROW(AttentionTying::parse("sym-scores"), Error);
}

}  // namespace
}  // namespace qkv::train
