#include "core/train/training_job.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/tokenize/bpe_trainer.h"
#include "core/train/checkpoint.h"
#include "core/train/corpus.h"
#include "core/train/parameters.h"
#include "core/train/variant_metrics.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace qkv::train {
namespace {

using Json = nlohmann::ordered_json;

Json configJson(const TrainingJob& job, const TrainingData& data) {
    const TrainingOptions& o = job.options;
    const OptimizerSettings& opt = o.optimizer;
    return {{"attention", o.shape.tying.name},
            {"layers", o.shape.layers},
            {"heads", o.shape.heads},
            {"d_model", o.shape.dModel},
            {"context", o.shape.context},
            {"vocab_size", o.shape.vocab},
            {"parameters", ParameterLayout(o.shape).count()},
            {"steps", o.steps},
            {"batch_size", o.batchSize},
            {"tokens_per_step", o.tokensPerStep()},
            {"learning_rate", opt.learningRate},
            {"final_learning_rate", opt.finalLearningRate},
            {"warmup_steps", opt.warmupSteps},
            {"adam_betas", {opt.beta1, opt.beta2}},
            {"weight_decay", opt.weightDecay},
            {"clip_norm", opt.clipNorm},
            {"eval_interval", o.evaluationEvery()},
            {"threads", o.threads},
            {"corpus", job.corpus},
            {"train_tokens", data.train.size()},
            {"validation_tokens", data.validation.size()}};
}

Json relationsJson(const RelationScore& r) {
    Json byKind = Json::object();
    for (const auto& [kind, accuracy] : r.accuracyByKind) byKind[kind] = accuracy;
    return {{"relation_accuracy", r.accuracy},
            {"relation_pairs", r.pairs},
            {"relation_accuracy_by_kind", byKind}};
}

Json entryJson(const LogEntry& e) {
    Json j = {{"step", e.step},
              {"train_loss", e.trainLoss},
              {"val_loss", e.valLoss},
              {"tokens_per_s", e.tokensPerSecond},
              {"learning_rate", e.learningRate},
              {"attention_entropy", e.attentionEntropy},
              {"grad_norm_q", e.gradNormQuery}};
    if (e.gradNormKey) j["grad_norm_k"] = *e.gradNormKey;
    if (e.relations) j.update(relationsJson(*e.relations));
    return j;
}

void writeLog(const std::filesystem::path& folder, const ModelShape& shape, Json doc,
              const TrainingRun& run, bool finished) {
    const std::vector<LogEntry>& entries = run.log;
    Json steps = Json::array();
    for (const LogEntry& e : entries) steps.push_back(entryJson(e));
    doc["steps"] = steps;
    doc["completed_steps"] = entries.empty() ? 0 : entries.back().step;
    doc["finished"] = finished;
    if (!entries.empty()) {
        const LogEntry& last = entries.back();
        doc["final"] = {{"step", last.step},
                        {"train_loss", last.trainLoss},
                        {"val_loss", last.valLoss},
                        {"val_perplexity", std::exp(last.valLoss)},
                        {"attention_entropy", last.attentionEntropy}};
        if (last.relations) doc["final"].update(relationsJson(*last.relations));
        if (finished && shape.tying.fullBilinear) {
            const BilinearRank rank = bilinearRank(shape, ParameterLayout(shape), run.params);
            doc["final"]["bilinear_effective_rank"] = rank.effectiveRank;
            doc["final"]["bilinear_numerical_rank"] = rank.numericalRank;
            doc["final"]["head_dim"] = shape.headDim();
        }
    }
    doc["train_seconds"] = run.trainSeconds;
    doc["tokens_per_s"] =
        run.trainSeconds > 0
            ? run.stepsDone * doc["config"]["tokens_per_step"].get<double>() / run.trainSeconds
            : 0.0;
    doc["gflop_per_s"] = run.trainSeconds > 0 ? run.flops / run.trainSeconds / 1e9 : 0.0;
    writeFileAtomically(folder / "training_log.json", doc.dump(2) + "\n");
}

}  // namespace

JobResult runTrainingJob(const TrainingJob& job, const JobCallbacks& callbacks) {
    auto status = [&](const std::string& line) {
        if (callbacks.onStatus) callbacks.onStatus(line);
    };
    const TextCorpus corpus =
        job.corpus == kBuiltinCorpus ? builtinCorpus() : fileCorpus(job.corpus);
    const std::filesystem::path& folder = job.outputDir;
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec || !std::filesystem::is_directory(folder))
        throw Error(folder.string() + ": cannot create the output folder" +
                    (ec ? " (" + ec.message() + ")" : ""));
    status("corpus " + corpus.description + ": " + std::to_string(corpus.train.size()) +
           " training and " + std::to_string(corpus.validation.size()) + " validation documents");

    BpeTrainer bpe;
    for (const std::string& document : corpus.train) bpe.addText(document);
    const BpeVocabulary vocabulary = bpe.train(job.vocabSize);
    writeGpt2TokenizerFiles(vocabulary, folder);
    status("tokenizer: " + std::to_string(vocabulary.pieces.size()) + " tokens (" +
           std::to_string(vocabulary.merges.size()) + " merges)");

    // Token ids come from the saved files, read back by the same tokenizer every model uses.
    const auto tokenizer = loadTokenizer(folder);
    TrainingData data{
        tokenStream(*tokenizer, corpus.train), tokenStream(*tokenizer, corpus.validation), {}};
    // The relation probe asks about the built-in stories' relations; other text has none.
    if (job.corpus == kBuiltinCorpus)
        data.relations = tokenizeRelations(*tokenizer, relationPairs());
    status("tokens: " + std::to_string(data.train.size()) + " training, " +
           std::to_string(data.validation.size()) + " validation");

    TrainingJob resolved = job;
    resolved.options.shape.vocab = tokenizer->vocabSize();
    if (resolved.options.threads <= 0)
        resolved.options.threads =
            static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const ModelShape& shape = resolved.options.shape;
    shape.validate();
    writeConfigJson(shape, endOfTextId(*tokenizer), folder);

    Json log = {{"command", job.command},
                {"seed", job.options.seed},
                {"config", configJson(resolved, data)}};
    JobResult result;
    TrainingCallbacks training = callbacks.training;
    training.onEvaluation = [&](const TrainingRun& run) {
        const int step = run.log.back().step;
        const std::map<std::string, std::string> metadata{
            {"qkvlab_config", log["config"].dump()},
            {"qkvlab_attention_tying", shape.tying.name},
            {"qkvlab_step", std::to_string(step)}};
        if (job.saveWeights) writeModelWeights(shape, run.params, metadata, folder);
        writeLog(folder, shape, log, run, step == resolved.options.steps);
        result.checkpointStep = step;
        if (callbacks.training.onEvaluation) callbacks.training.onEvaluation(run);
    };
    result.run = train(resolved.options, data, training);
    return result;
}

}  // namespace qkv::train
