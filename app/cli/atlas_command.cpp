// qkvlab-cli atlas: every head's scores over a corpus into an atlas file (SQLite, docs/atlas.md),
// resumed where an earlier run of the same model, corpus and options stopped; with --show, the
// per-head table of an atlas file.
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "app/cli/cli_common.h"
#include "app/cli/command.h"
#include "app/cli/train_options.h"
#include "core/report/atlas_run.h"
#include "core/train/corpus.h"
#include "core/util/error.h"
#include "core/util/sha256.h"

namespace qkv::cli {
namespace {

constexpr int kDefaultContext = 256;

std::vector<AtlasScore> allScores() {
    std::vector<AtlasScore> scores;
    for (int s = 0; s < kAtlasScores; ++s) scores.push_back(static_cast<AtlasScore>(s));
    return scores;
}

// One line on stderr, rewritten: documents, tokens/s and the time left; on a terminal only, so
// redirected output stays clean.
void showProgress(const AtlasProgress& p) {
    static const bool terminal = isatty(fileno(stderr));
    if (!terminal) return;
    const double left = p.secondsLeft;
    std::fprintf(stderr, "\ratlas: document %lld of %lld, %lld tokens, %.0f tokens/s, ",
                 static_cast<long long>(p.documents), static_cast<long long>(p.totalDocuments),
                 static_cast<long long>(p.tokens), p.tokensPerSecond);
    if (left >= 0)
        std::fprintf(stderr, "%d:%02d left   ", static_cast<int>(left) / 60,
                     static_cast<int>(left) % 60);
    std::fflush(stderr);
}

int runCompute(const Arguments& args) {
    if (!args.has("out")) throw UsageError("--out ATLAS names the atlas file to write or resume");
    auto model = openModel(args);
    // Without --corpus: the project's own stories, which it may give away with itself.
    const auto corpus = args.value("corpus");
    const std::vector<std::string> documents =
        corpus ? atlasDocuments(*corpus) : train::builtinValidationStories();
    AtlasRunOptions options;
    options.context = args.integer("context", 2, 1 << 20)
                          .value_or(std::min(kDefaultContext, model->architecture().contextLength));
    if (const auto max = args.integer("max-tokens", 1, 2'000'000'000)) options.maxTokens = *max;
    const Architecture& c = model->architecture();
    options.context = std::min(options.context, c.contextLength);  // what the model can see
    AtlasProvenance provenance;
    provenance.model = args.required("model");
    provenance.modelDigest = atlasModelDigest(*model);
    provenance.corpus = corpus.value_or(train::kBuiltinCorpus);
    if (corpus) {
        provenance.corpusDigest = fileSha256(*corpus);
    } else {
        Sha256 digest;
        for (const std::string& story : documents) digest.update(story + "\n\n");
        provenance.corpusDigest = digest.hex();
    }
    provenance.options = atlasOptionsJson(options);
    for (int l = 0; l < c.layers; ++l) {
        provenance.heads.push_back(c.headsOf(l));
        provenance.kinds.push_back(c.kindName(l));
    }
    auto file = AtlasFile::openForRun(args.required("out"), provenance);
    auto backend = openBackend(args);
    const InterruptFlag interrupted;
    AtlasRunResult r;
    try {
        r = runAtlas(*model, *backend, documents, *file, options, showProgress, interrupted.flag());
    } catch (const Cancelled&) {
        std::fprintf(stderr,
                     "\ninterrupted: %s holds %lld documents; the same command resumes it\n",
                     args.required("out").c_str(), static_cast<long long>(file->documentsDone()));
        return 130;
    }
    if (isatty(fileno(stderr))) std::fprintf(stderr, "\n");
    if (r.resumedFrom > 0)
        std::fprintf(stderr, "resumed after %lld documents already in %s\n",
                     static_cast<long long>(r.resumedFrom), args.required("out").c_str());
    if (r.stoppedAtMaxTokens)
        std::fprintf(stderr,
                     "stopped at --max-tokens: %lld of %zu documents (%lld tokens) are in the "
                     "atlas\n",
                     static_cast<long long>(r.documents), documents.size(),
                     static_cast<long long>(r.tokens));
    std::printf("wrote %s: %lld documents, %lld tokens\n", args.required("out").c_str(),
                static_cast<long long>(r.documents), static_cast<long long>(r.tokens));
    return 0;
}

nlohmann::ordered_json headsJson(const AtlasFile& file, const HeadAtlas& atlas) {
    nlohmann::ordered_json heads = nlohmann::ordered_json::array();
    for (int l = 0; l < atlas.layers(); ++l)
        for (int h = 0; h < atlas.heads(l); ++h) {
            nlohmann::ordered_json head = {
                {"layer", l}, {"head", h}, {"kind", file.provenance().kinds.at(l)}};
            for (AtlasScore s : allScores()) {
                const auto mean = atlas.mean(l, h, s);
                head[atlasScoreName(s)] = mean ? nlohmann::ordered_json(*mean) : nullptr;
            }
            heads.push_back(head);
        }
    return heads;
}

int runShow(const Arguments& args) {
    const auto file = AtlasFile::openToRead(*args.value("show"));
    const HeadAtlas atlas = file->atlas();
    const AtlasProvenance& p = file->provenance();
    if (args.flag("json")) {
        printJson({{"atlas", *args.value("show")},
                   {"version", file->version()},
                   {"model", p.model},
                   {"model_digest", p.modelDigest},
                   {"corpus", p.corpus},
                   {"corpus_digest", p.corpusDigest},
                   {"options", nlohmann::json::parse(p.options)},
                   {"documents", file->documentsDone()},
                   {"tokens", file->tokensDone()},
                   {"sequences", atlas.sequences()},
                   {"heads", headsJson(*file, atlas)}});
        return 0;
    }
    std::printf("%s: %s over %s, %lld documents, %lld tokens, %lld sequences\n",
                args.value("show")->c_str(), p.model.c_str(), p.corpus.c_str(),
                static_cast<long long>(file->documentsDone()),
                static_cast<long long>(file->tokensDone()),
                static_cast<long long>(atlas.sequences()));
    std::printf("%5s %4s %-18s", "layer", "head", "kind");
    const char* headers[] = {"prev",    "dup",      "induct", "first", "self",
                             "entropy", "distance", "s(S)",   "dir"};
    for (const char* h : headers) std::printf(" %8s", h);
    std::printf("\n");
    for (int l = 0; l < atlas.layers(); ++l)
        for (int h = 0; h < atlas.heads(l); ++h) {
            std::printf("%5d %4d %-18s", l, h, p.kinds.at(l).c_str());
            for (AtlasScore s : allScores()) {
                if (const auto mean = atlas.mean(l, h, s))
                    std::printf(" %8.4f", *mean);
                else
                    std::printf(" %8s", "-");
            }
            std::printf("\n");
        }
    std::printf(
        "\n(means over sequences; prev, dup, induct: TransformerLens's detector scores; s(S), dir: "
        "of the raw scores, docs/definitions.md)\n");
    return 0;
}

int runAtlasCommand(const Arguments& args) {
    if (args.has("show")) {
        for (const char* option : {"model", "corpus", "out", "context", "max-tokens"})
            if (args.has(option))
                throw UsageError(std::string("--show reads an atlas: --") + option +
                                 " is for computing one");
        return runShow(args);
    }
    if (args.flag("json")) throw UsageError("--json is for --show ATLAS");
    return runCompute(args);
}

}  // namespace

Command atlasCommand() {
    std::vector<OptionSpec> options = modelOptions();
    options.push_back({"corpus", "FILE",
                       "the text: paragraphs (separated by blank lines) are documents; a .jsonl "
                       "file's lines are objects with a \"text\" (default: the built-in "
                       "stories)"});
    options.push_back({"out", "ATLAS", "the atlas file to write, or to resume where it stopped"});
    options.push_back({"context", "N",
                       "tokens per sequence: longer documents are cut (default 256, or the "
                       "model's context)"});
    options.push_back({"max-tokens", "N", "start no document once N tokens are counted"});
    options.push_back(backendOption());
    options.push_back({"show", "ATLAS", "print an atlas file's per-head table"});
    options.push_back(jsonOption());
    return {"atlas",
            "every head's scores over a corpus (previous-token, induction, sink, symmetry, ...) "
            "into a resumable atlas file",
            options, runAtlasCommand};
}

}  // namespace qkv::cli
