// qkvlab-cli atlas: every head's scores over a corpus into an atlas file (SQLite, docs/atlas.md),
// resumed where an earlier run of the same model, corpus and options stopped; with --show, the
// per-head table of an atlas file.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "app/cli/cli_common.h"
#include "app/cli/command.h"
#include "app/cli/train_options.h"
#include "core/model/w_configuration.h"
#include "core/report/atlas_job.h"
#include "core/report/atlas_tables.h"
#include "core/util/error.h"

namespace qkv::cli {
namespace {

constexpr int kDefaultContext = 256;

// --config "shared-qk tied-kv": the configurations' names, as WConfiguration spells them
// (checkAtlasOptions refuses one named twice).
std::vector<std::string> configurationsOf(const std::string& list) {
    std::vector<std::string> names;
    std::istringstream words(list);
    for (std::string word; words >> word;) names.push_back(WConfiguration::parse(word).name());
    if (names.empty()) throw UsageError("--config names no configuration");
    return names;
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
    const auto corpusFile = args.value("corpus");
    const AtlasCorpus corpus =
        atlasCorpus(corpusFile ? std::optional<std::filesystem::path>(*corpusFile) : std::nullopt);
    const std::vector<std::string>& documents = corpus.documents;
    AtlasRunOptions options;
    options.context = args.integer("context", 2, 1 << 20)
                          .value_or(std::min(kDefaultContext, model->architecture().contextLength));
    if (const auto max = args.integer("max-tokens", 1, 2'000'000'000)) options.maxTokens = *max;
    if (const auto list = args.value("config")) options.configurations = configurationsOf(*list);
    options.top = args.integer("examples", 1, 1000).value_or(kAtlasDefaultTop);
    options.context = std::min(options.context, model->architecture().contextLength);
    checkAtlasOptions(*model, options);
    const AtlasProvenance provenance =
        atlasProvenance(*model, args.required("model"), corpus, options);
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

void printTable(const std::string& path, const AtlasFile& file, const HeadAtlas& atlas) {
    const AtlasProvenance& p = file.provenance();
    std::printf("%s: %s over %s, %lld documents, %lld tokens, %lld sequences\n", path.c_str(),
                p.model.c_str(), p.corpus.c_str(), static_cast<long long>(file.documentsDone()),
                static_cast<long long>(file.tokensDone()),
                static_cast<long long>(atlas.sequences()));
    std::printf("%5s %4s %-18s", "layer", "head", "kind");
    const char* headers[] = {"prev",    "dup",      "induct", "first", "self",
                             "entropy", "distance", "s(S)",   "dir"};
    for (const char* h : headers) std::printf(" %8s", h);
    for (std::size_t c = 0; c < atlas.configurations().size(); ++c)
        std::printf(" %8s", ("chg" + std::to_string(c + 1)).c_str());
    std::printf("\n");
    for (int l = 0; l < atlas.layers(); ++l)
        for (int h = 0; h < atlas.heads(l); ++h) {
            std::printf("%5d %4d %-18s", l, h, p.kinds.at(l).c_str());
            for (std::size_t s = 0; s < atlas.scores().size(); ++s) {
                if (const auto mean = atlas.tally(l, h, static_cast<int>(s)).mean())
                    std::printf(" %8.4f", *mean);
                else
                    std::printf(" %8s", "-");
            }
            std::printf("\n");
        }
    std::printf(
        "\n(means over sequences; prev, dup, induct: TransformerLens's detector scores; s(S), dir: "
        "of the raw scores, docs/definitions.md)\n");
    for (std::size_t c = 0; c < atlas.configurations().size(); ++c)
        std::printf("chg%zu: mean total variation of a row under %s against learned\n", c + 1,
                    atlas.configurations()[c].c_str());
}

// --top SCORE: every head's best examples for the score.
int printTop(const std::string& score, const HeadAtlas& atlas, bool json) {
    nlohmann::ordered_json examples;
    try {
        examples = atlasExamplesJson(atlas, score);
    } catch (const Error& e) {
        throw UsageError("--top " + score + ": " + e.what());
    }
    if (json) {
        printJson({{"score", score}, {"examples", examples}});
        return 0;
    }
    for (const auto& e : examples) {
        const long long token = e["first_token"].get<long long>() +
                                (e["query"].is_null() ? 0 : e["query"].get<long long>());
        std::printf("L%d H%d  %2d  %9.4f  document %lld, token %lld: %s\n", e["layer"].get<int>(),
                    e["head"].get<int>(), e["rank"].get<int>(), e["value"].get<double>(),
                    e["document"].get<long long>(), token, e["context"].get<std::string>().c_str());
    }
    return 0;
}

int runShow(const Arguments& args) {
    const std::string path = *args.value("show");
    const auto file = AtlasFile::openToRead(path);
    const HeadAtlas atlas = file->atlas();
    if (const auto score = args.value("top")) return printTop(*score, atlas, args.flag("json"));
    if (args.flag("json"))
        printJson(atlasJson(path, *file, atlas));
    else
        printTable(path, *file, atlas);
    return 0;
}

int runAtlasCommand(const Arguments& args) {
    if (args.has("show")) {
        for (const char* option :
             {"model", "corpus", "out", "context", "max-tokens", "config", "examples"})
            if (args.has(option))
                throw UsageError(std::string("--show reads an atlas: --") + option +
                                 " is for computing one");
        return runShow(args);
    }
    if (args.flag("json")) throw UsageError("--json is for --show ATLAS");
    if (args.has("top")) throw UsageError("--top SCORE is for --show ATLAS");
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
    options.push_back({"config", "\"NAME ...\"",
                       "configurations to compare with learned, separated by spaces (shared-qk, "
                       "tied-kv, single-w, sym-scores, q=K,k=Q,v=V, ...): each head's mean and "
                       "largest change of a row (total variation)"});
    options.push_back({"examples", "N", "best examples kept per head and score (default 5)"});
    options.push_back(backendOption());
    options.push_back({"show", "ATLAS", "print an atlas file's per-head table"});
    options.push_back({"top", "SCORE", "with --show: every head's best examples for SCORE"});
    options.push_back(jsonOption());
    return {"atlas",
            "every head's scores over a corpus (previous-token, induction, sink, symmetry, ...) "
            "into a resumable atlas file",
            options, runAtlasCommand};
}

}  // namespace qkv::cli
