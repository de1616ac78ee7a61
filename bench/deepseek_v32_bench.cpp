#include "bench/deepseek_v32_bench.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "bench/bench_common.h"
#include "bench/child_stage.h"
#include "bench/page_residency.h"
#include "bench/random_checkpoint.h"
#include "core/io/safetensors.h"
#include "core/model/mixture_of_experts.h"
#include "core/model/model_family.h"
#include "core/util/half.h"

namespace qkv::bench {
namespace {

using Resident = std::map<std::string, std::uint64_t>;
using ExpertSets = std::map<int, std::set<int>>;  // layer -> experts

// The real config the checkpoint is written from (tests/data/real-configs).
std::filesystem::path realConfig() {
    return std::filesystem::path(QKV_BENCH_SOURCE_DIR) / ".." / "tests" / "data" / "real-configs" /
           "DeepSeek-V3.2.json";
}

struct FolderSize {
    double logical = 0, onDisk = 0;
    int files = 0;
};

FolderSize folderSize(const std::filesystem::path& dir) {
    FolderSize size;
    for (const auto& file : checkpointFiles(dir)) {
        struct stat st {};
        if (::stat(file.c_str(), &st) != 0) continue;
        size.logical += static_cast<double>(st.st_size);
        size.onDisk += 512.0 * static_cast<double>(st.st_blocks);
        ++size.files;
    }
    return size;
}

// What a stage read, by kind of tensor.
struct ReadBytes {
    std::map<std::string, double> byKind;
    double total = 0;
};

ReadBytes classify(const Resident& resident, int layers) {
    static const std::regex layerName(R"(model\.layers\.(\d+)\.(.*))");
    static const std::regex expertName(R"(mlp\.experts\.\d+\..*)");
    ReadBytes read;
    for (const auto& [name, bytes] : resident) {
        if (bytes == 0) continue;
        read.total += static_cast<double>(bytes);
        std::smatch m;
        std::string kind = "embedding, norms, output head";
        if (std::regex_match(name, m, layerName)) {
            const int layer = std::stoi(m[1]);
            const std::string rest = m[2];
            if (layer >= layers)
                kind = "multi-token prediction layer";
            else if (std::regex_match(rest, expertName))
                kind = "routed experts";
            else if (rest.starts_with("self_attn."))
                kind = "attention and indexer";
            else if (rest.starts_with("mlp.gate."))
                kind = "routers";
            else if (rest.starts_with("mlp."))
                kind = "shared experts, dense MLPs";
        }
        read.byKind[kind] += static_cast<double>(bytes);
    }
    return read;
}

// Runs `work` in a child process with the checkpoint out of the page cache, then counts what it
// read.
std::pair<Stage, ReadBytes> measured(const std::filesystem::path& dir, int layers,
                                     const std::function<double()>& work) {
    evictCheckpoint(dir);
    const Stage stage = inChild(work);
    return {stage, classify(residentTensorBytes(dir), layers)};
}

// A bf16 tensor of the checkpoint as floats (`rows` of it: all when empty).
std::vector<float> bf16Rows(const TensorInfo& t, const std::vector<int>& rows) {
    const auto* values = reinterpret_cast<const std::uint16_t*>(t.data);
    const std::int64_t cols = t.shape.size() > 1 ? t.shape[1] : t.shape[0];
    std::vector<int> all = rows;
    if (all.empty())
        for (int r = 0; r < t.shape[0]; ++r) all.push_back(r);
    std::vector<float> out;
    out.reserve(all.size() * static_cast<std::size_t>(cols));
    for (int r : all)
        for (std::int64_t j = 0; j < cols; ++j) out.push_back(bf16ToFloat(values[r * cols + j]));
    return out;
}

// The experts the router of each layer picks for `ids`. With every weight but the embedding's,
// the routers' and the norms' zero, the residual stream is the token's embedding in every layer,
// and a router sees it RMS-normalised (norm weights of one).
ExpertSets routerChoices(const std::filesystem::path& dir, const Architecture& c,
                         const std::vector<int>& ids) {
    auto store = TensorStore::openFolder(dir);
    const TensorInfo* embedding = store->find("model.embed_tokens.weight");
    std::vector<float> x = bf16Rows(*embedding, ids);
    const int d = c.dModel, tokens = static_cast<int>(ids.size());
    for (int t = 0; t < tokens; ++t) {
        double sum = 0;
        for (int j = 0; j < d; ++j) sum += double(x[t * d + j]) * x[t * d + j];
        const float scale = 1.0f / std::sqrt(static_cast<float>(sum / d) + c.normEps);
        for (int j = 0; j < d; ++j) x[t * d + j] *= scale;
    }
    ExpertSets chosen;
    for (int l = 0; l < c.layers; ++l) {
        if (!c.kindOf(l).experts) continue;
        const std::vector<float> router =
            bf16Rows(*store->find("model.layers." + std::to_string(l) + ".mlp.gate.weight"), {});
        std::vector<float> logits(static_cast<std::size_t>(tokens) * c.moe.experts);
        for (int t = 0; t < tokens; ++t)
            for (int e = 0; e < c.moe.experts; ++e) {
                double dot = 0;
                for (int j = 0; j < d; ++j) dot += double(router[e * d + j]) * x[t * d + j];
                logits[t * c.moe.experts + e] = static_cast<float>(dot);
            }
        for (const TokenRouting& token : routeLogits(c.moe, logits.data(), tokens, {}))
            for (const ExpertChoice& choice : token) chosen[l].insert(choice.expert);
    }
    return chosen;
}

// Each layer's routed experts' weights (gate, up and down; not their block scales) in the
// mappings of `files`.
using ExpertWeights = std::map<int, std::map<int, std::vector<const TensorInfo*>>>;
ExpertWeights expertWeights(const std::vector<std::unique_ptr<SafetensorsFile>>& files) {
    static const std::regex name(R"(model\.layers\.(\d+)\.mlp\.experts\.(\d+)\.\w+_proj\.weight)");
    ExpertWeights weights;
    std::smatch m;
    for (const auto& file : files)
        for (const auto& [tensor, info] : file->tensors())
            if (std::regex_match(tensor, m, name))
                weights[std::stoi(m[1])][std::stoi(m[2])].push_back(&info);
    return weights;
}

// What a forward read of each layer's routed experts, looked at as soon as the layer is computed
// (the whole forward reads more than the machine holds, so later layers push earlier ones out of
// the page cache): an expert counts as read when 90 % of its weights' pages are in the page
// cache, as touched from 1 % (the pages the kernel reads around a fault in a neighbour, or
// around the block scales stored next to it, which the model reads when it opens).
struct ExpertsRead {
    ExpertSets read;
    int touched = 0;  // experts with 1-90 % of their pages in the page cache, in every layer
};

// In the forward's process: the forward's seconds, and what it read of the experts written to
// `record` ("layer expert expert ...", then "touched N").
double forwardRecordingExperts(const std::filesystem::path& dir, const std::vector<int>& ids,
                               const std::filesystem::path& record) {
    std::vector<std::unique_ptr<SafetensorsFile>> files;  // their own mappings, for mincore
    for (const auto& file : checkpointFiles(dir))
        files.push_back(std::make_unique<SafetensorsFile>(file));
    const ExpertWeights weights = expertWeights(files);
    std::ofstream out(record);
    int touched = 0;
    const double forward = forwardSeconds(dir, ids, [&](int layer) {
        const auto experts = weights.find(layer);
        if (experts == weights.end()) return;
        out << layer;
        for (const auto& [expert, tensors] : experts->second) {
            double bytes = 0, resident = 0;
            for (const TensorInfo* t : tensors) {
                bytes += static_cast<double>(t->byteSize);
                resident += static_cast<double>(residentBytes(t->data, t->byteSize));
            }
            if (resident >= 0.9 * bytes)
                out << ' ' << expert;
            else if (resident >= 0.01 * bytes)
                ++touched;
        }
        out << '\n';
    });
    out << "touched " << touched << '\n';
    return forward;
}

ExpertsRead readRecord(const std::filesystem::path& record) {
    ExpertsRead read;
    std::ifstream in(record);
    for (std::string line; std::getline(in, line);) {
        std::istringstream fields(line);
        std::string first;
        fields >> first;
        if (first == "touched") {
            fields >> read.touched;
            continue;
        }
        std::set<int>& experts = read.read[std::stoi(first)];
        for (int expert; fields >> expert;) experts.insert(expert);
    }
    return read;
}

void printStage(const char* what, const Stage& stage, const ReadBytes& read) {
    if (!stage.error.empty()) {
        std::printf("%-28s failed: %s\n", what, stage.error.c_str());
        return;
    }
    std::printf("%-28s %8.1f s   %6.2f GB anon   read %7.2f GB of the files\n", what, stage.seconds,
                stage.peakAnon / 1e9, read.total / 1e9);
    for (const auto& [kind, bytes] : read.byKind)
        std::printf("%-28s %40s %7.2f GB  %s\n", "", "", bytes / 1e9, kind.c_str());
}

}  // namespace

int runDeepSeekV32Bench(const LargeModelOptions& o, bool analysis) {
    TemporaryFolder temporary;
    const std::filesystem::path dir = checkpointFolder(
        o.checkpoint, "DeepSeek-V3.2 (671B) FP8, sparse (about 2 GB of disk)",
        [](const std::filesystem::path& folder) {
            writeSparseDeepSeekV32Fp8(folder, realConfig(), 42);
        },
        temporary);
    const Architecture c = loadArchitecture(dir / "config.json");
    const std::vector<int> ids = randomIds(o.tokens, c.vocabSize);

    std::cerr << "open + info ...\n";
    const auto [info, infoRead] = measured(dir, c.layers, [&] {
        const auto start = Clock::now();
        auto model = Model::open(dir);
        return model->parameterCount() > 0 ? seconds(start) : -1.0;
    });
    std::cerr << "forward of " << o.tokens << " tokens, every head captured ...\n";
    const std::filesystem::path record =
        std::filesystem::temp_directory_path() /
        ("qkvlab-bench-experts-" + std::to_string(::getpid()) + ".txt");
    const auto [forward, forwardRead] =
        measured(dir, c.layers, [&] { return forwardRecordingExperts(dir, ids, record); });
    const ExpertsRead expertsRead = readRecord(record);
    std::filesystem::remove(record);
    Stage analyze;
    ReadBytes analyzeRead;
    if (analysis) {
        std::cerr << "analyze every head, layer by layer ...\n";
        std::tie(analyze, analyzeRead) =
            measured(dir, c.layers, [&] { return analysisSeconds(dir.string(), false); });
    }
    std::cerr << "the routers' own choices ...\n";
    const ExpertSets chosen = routerChoices(dir, c, ids);

    const FolderSize size = folderSize(dir);
    const double memory =
        static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
    std::printf(
        "\nDeepSeek-V3.2 (real config: %d layers, 128 heads of latent attention with the "
        "lightning indexer, %d routed experts and %d per token) as the Hub stores it, FP8 blocks: "
        "%.1f GB in %d files (%.1f GB on disk: zeros are holes), on a machine of %.1f GB; each "
        "stage starts with the files out of the page cache; read = the tensors' pages found in it "
        "afterwards (a hole reads as zeros through it like data; the forward reads more than "
        "memory holds, so its routed experts are counted after each layer, below)\n\n",
        c.layers, c.moe.experts, c.moe.perToken, size.logical / 1e9, size.files, size.onDisk / 1e9,
        memory / 1e9);
    printStage("open + info", info, infoRead);
    printStage(("forward, " + std::to_string(o.tokens) + " tokens").c_str(), forward, forwardRead);
    if (analysis)
        printStage(("analyze " + std::to_string(c.layers * c.heads) + " heads").c_str(), analyze,
                   analyzeRead);

    // Every routed expert the forward read must be one the router picked, and each picked one
    // read: nothing else of the 256 per layer. Without logits nothing reads the last layer's
    // output, so its experts are not run (forward.cpp): none of them may be read.
    int agreeing = 0, fewest = c.moe.experts, most = 0, moeLayers = 0, total = 0;
    for (auto [layer, picked] : chosen) {
        if (layer == c.layers - 1) picked.clear();
        ++moeLayers;
        const auto read = expertsRead.read.find(layer);
        const std::set<int> got = read == expertsRead.read.end() ? std::set<int>{} : read->second;
        agreeing += got == picked;
        if (got != picked) {
            std::printf("layer %d: the forward read experts", layer);
            for (int e : got) std::printf(" %d", e);
            std::printf("; the router picks");
            for (int e : picked) std::printf(" %d", e);
            std::printf("\n");
        }
        total += static_cast<int>(got.size());
        fewest = std::min(fewest, static_cast<int>(got.size()));
        most = std::max(most, static_cast<int>(got.size()));
    }
    const bool onlyRouted = forward.error.empty() && agreeing == moeLayers;
    std::printf(
        "\nrouted experts the forward read (90 %% of their pages, right after their layer): %d to "
        "%d of %d per layer; the same set as the router's own choice for these %d tokens in %d of "
        "%d layers (the last: none, as nothing reads its output)  %s\n%d routed experts read in "
        "all, %.1f GB of FP8 weights; %d more had 1-90 %% of their pages cached: what the kernel "
        "reads around a fault, and around the block scales the model reads when it opens\n",
        fewest, most, c.moe.experts, o.tokens, agreeing, moeLayers, onlyRouted ? "met" : "MISSED",
        total, total * 3.0 * c.dModel * c.moe.width / 1e9, expertsRead.touched);
    const bool analysed = !analysis || analyze.error.empty();
    return info.error.empty() && analysed && onlyRouted ? 0 : 1;
}

}  // namespace qkv::bench
