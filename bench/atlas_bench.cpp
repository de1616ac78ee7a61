#include "bench/atlas_bench.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "bench/bench_common.h"
#include "bench/child_stage.h"
#include "bench/random_checkpoint.h"
#include "core/backend/backend.h"
#include "core/report/atlas_job.h"
#include "core/train/corpus.h"

namespace qkv::bench {
namespace {

namespace fs = std::filesystem;

constexpr int kContext = 256;
const fs::path kStoriesModel = fs::path(QKV_BENCH_MODELS_DIR) / "qkv-stories-learned";

// The shipped model's tokenizer, so that a random checkpoint reads text (its ids are below the
// shipped vocabulary's 818).
void copyTokenizer(const fs::path& dir) {
    for (const char* file : {"vocab.json", "merges.txt", "tokenizer_config.json"})
        fs::copy_file(kStoriesModel / file, dir / file, fs::copy_options::overwrite_existing);
}

// The built-in stories, again and again, until they hold `tokens` tokens.
std::vector<std::string> storiesOf(const Model& model, std::int64_t tokens) {
    const std::vector<std::string> stories = train::builtinValidationStories();
    std::vector<std::int64_t> lengths;
    for (const std::string& s : stories) lengths.push_back(model.tokenize(s).size());
    std::vector<std::string> documents;
    for (std::int64_t total = 0, i = 0; total < tokens; ++i) {
        documents.push_back(stories[i % stories.size()]);
        total += lengths[i % stories.size()];
    }
    return documents;
}

// The sequences the atlas reads: each document's tokens cut every kContext.
nlohmann::json sequencesOf(const Model& model, const std::vector<std::string>& documents) {
    nlohmann::json sequences = nlohmann::json::array();
    for (const std::string& d : documents) {
        std::vector<int> ids;
        for (const Token& t : model.tokenize(d)) ids.push_back(t.id);
        for (std::size_t first = 0; first + 1 < ids.size(); first += kContext)
            sequences.push_back(std::vector<int>(
                ids.begin() + first, ids.begin() + std::min(ids.size(), first + kContext)));
    }
    return sequences;
}

// runAtlas over `documents` into a new file in `dir`: its seconds.
double atlasSeconds(const Model& model, const std::vector<std::string>& documents,
                    const fs::path& file) {
    fs::remove(file);
    AtlasCorpus corpus{"bench", documents, "bench"};
    AtlasRunOptions options;
    options.context = kContext;
    auto atlas = AtlasFile::openForRun(file, atlasProvenance(model, "bench", corpus, options));
    auto backend = createCpuBackend();
    const auto start = Clock::now();
    runAtlas(model, *backend, documents, *atlas, options, [](const AtlasProgress& p) {
        std::cerr << "\r  document " << p.documents << " of " << p.totalDocuments << ", "
                  << static_cast<long>(p.tokensPerSecond) << " tokens/s   " << std::flush;
    });
    std::cerr << "\n";
    return seconds(start);
}

void gpt2Rows(const AtlasBenchOptions& o, const fs::path& work) {
    train::ModelShape shape = gpt2Small();
    shape.vocab = 818;  // the shipped tokenizer's
    const fs::path dir = work / "gpt2-small";
    std::cerr << "writing a GPT-2-small-shaped random checkpoint ...\n";
    writeRandomGpt2(dir, shape, 42);
    copyTokenizer(dir);
    auto model = Model::open(dir);
    const std::vector<std::string> documents = storiesOf(*model, o.tokens);
    const nlohmann::json sequences = sequencesOf(*model, documents);
    std::int64_t tokens = 0;
    for (const auto& s : sequences) tokens += static_cast<std::int64_t>(s.size());
    std::cerr << "the atlas of " << documents.size() << " documents (" << tokens << " tokens, "
              << sequences.size() << " sequences) ...\n";
    const double qkvlab = atlasSeconds(*model, documents, work / "gpt2.atlas");
    double torch = -1;
    if (o.torch) {
        std::ofstream(work / "sequences.json") << sequences.dump();
        std::cerr << "the same scores in PyTorch ...\n";
        const nlohmann::json r =
            runReferenceScript(o.python + " " + QKV_BENCH_SOURCE_DIR + "/torch_atlas.py " +
                               dir.string() + " " + (work / "sequences.json").string() + " 2>&1");
        if (r.is_object()) torch = r.at("seconds").get<double>();
    }
    std::printf("atlas, GPT-2 small, %lld tokens in %zu sequences of <= %d\n",
                static_cast<long long>(tokens), sequences.size(), kContext);
    std::printf("  qkvlab   %9.1f s  %9.0f tokens/s\n", qkvlab, tokens / qkvlab);
    if (torch > 0)
        std::printf("  PyTorch  %9.1f s  %9.0f tokens/s   ratio %.3fx (<= 0.5x): %s\n", torch,
                    tokens / torch, qkvlab / torch, qkvlab <= 0.5 * torch ? "met" : "MISSED");
    else
        std::printf("  PyTorch  not measured%s\n", o.torch ? " (the script failed)" : "");

    // Dask: a corpus of 16 blocks of documents, 1 and then 2 single-threaded workers.
    const std::vector<std::string> block(
        documents.begin(), documents.begin() + std::min<std::size_t>(documents.size(), 16 * 32));
    std::ofstream corpus(work / "corpus.txt");
    for (const std::string& d : block) corpus << d << "\n\n";
    corpus.close();
    std::cerr << "qkvlab.atlas on Dask LocalClusters of 1 and 2 workers ...\n";
    const nlohmann::json r =
        runReferenceScript("PYTHONPATH=" + std::string(QKV_BENCH_PYTHON_DIR) + " " + o.python +
                           " " + QKV_BENCH_SOURCE_DIR + "/dask_atlas.py " + dir.string() + " " +
                           (work / "corpus.txt").string() + " " + work.string() + " 2>&1");
    if (!r.is_object()) {
        std::printf("Dask: not measured (the script failed)\n");
        return;
    }
    const double one = r["seconds"]["1"], two = r["seconds"]["2"];
    std::printf("Dask LocalCluster, %lld documents (%lld tokens), single-threaded workers\n",
                r["documents"].get<long long>(), r["tokens"].get<long long>());
    std::printf("  1 worker   %7.1f s\n  2 workers  %7.1f s   throughput %.2fx (>= 1.7x): %s\n",
                one, two, one / two, one / two >= 1.7 ? "met" : "MISSED");
    std::printf(
        "  the machine's ceiling: two independent single-threaded processes at once give "
        "%.2fx one alone\n",
        r["ceiling"].get<double>());
}

// Documents of at most `tokens` tokens each (whole stories joined), as the shipped tokenizer
// reads them: their total count in `total`.
std::vector<std::string> documentsOf(int count, int tokens, std::int64_t& total) {
    const auto tokenizer = Model::open(kStoriesModel);
    std::vector<std::string> documents(count);
    std::size_t next = 0;
    const std::vector<std::string> stories = train::builtinValidationStories();
    total = 0;
    for (std::string& d : documents) {
        for (;; ++next) {
            const std::string longer = d + (d.empty() ? "" : " ") + stories[next % stories.size()];
            if (static_cast<int>(tokenizer->tokenize(longer).size()) > tokens) break;
            d = longer;
        }
        total += static_cast<std::int64_t>(tokenizer->tokenize(d).size());
    }
    return documents;
}

void llamaRow(const AtlasBenchOptions& o, const fs::path& work) {
    TemporaryFolder temporary;
    const std::string dir =
        llamaCheckpointFolder(o.checkpoint, llama3_8b(), "Llama-3-8B-shaped (16 GB)", temporary);
    copyTokenizer(dir);
    std::int64_t tokens = 0;
    const std::vector<std::string> documents = documentsOf(2, kContext, tokens);
    std::cerr << "the atlas of a Llama-3-8B-shaped model over 2 sequences (" << tokens
              << " tokens) ...\n";
    const Stage stage = inChild([&] {
        auto model = Model::open(dir);
        return atlasSeconds(*model, documents, work / "llama.atlas");
    });
    std::printf(
        "atlas, Llama-3-8B shape, 2 sequences of <= %d tokens (%lld; the first also "
        "reads the weights)\n",
        kContext, static_cast<long long>(tokens));
    if (!stage.error.empty()) {
        std::printf("  FAILED: %s\n", stage.error.c_str());
        return;
    }
    std::printf("  %9.1f s  %6.1f tokens/s   anonymous memory %.2f GB (<= 3 GB): %s\n",
                stage.seconds, tokens / stage.seconds, stage.peakAnon / double(1ull << 30),
                stage.peakAnon <= (3ull << 30) ? "met" : "MISSED");
}

}  // namespace

int runAtlasBench(const AtlasBenchOptions& o) {
    TemporaryFolder work;
    work.path = fs::temp_directory_path() / ("qkvlab-atlas-bench-" + std::to_string(getpid()));
    fs::create_directories(work.path);
    // The 8B stage forks: before the GPT-2 rows start any thread.
    if (o.large) llamaRow(o, work.path);
    gpt2Rows(o, work.path);
    return 0;
}

}  // namespace qkv::bench
