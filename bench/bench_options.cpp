#include "bench/bench_options.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "core/util/error.h"

namespace qkv::bench {
namespace {

constexpr const char* kUsage =
    "usage: qkvlab-bench [--backend vulkan] [--tokens 16,64,256,1024] [--repeats N] [--rounds N]\n"
    "                    [--keystroke-tokens 64,256] [--keystrokes N] [--long-tokens 4096]\n"
    "                    [--long-repeats N] [--no-torch] [--no-train] [--profile] [--json]\n"
    "                    [--python PATH] [--checkpoint DIR] [--vocab N]\n"
    "                    [--shape gpt2|llama3.2-1b|llama3-8b|llama3.1-8b-gguf|gpt-oss-20b|\n"
    "                             qwen3-30b-a3b-gguf|qwen3.5-9b|deepseek-v3.2|atlas]\n"
    "                    [--atlas-tokens N]\n"
    "  --keystroke-tokens 0 and --long-tokens 0 leave those rows out; --json prints the report\n"
    "  as one JSON object on stdout (progress stays on stderr). --shape llama3.2-1b times the\n"
    "  forward at 64 and 1024 tokens (or --tokens) against PyTorch; llama3-8b the 8B targets;\n"
    "  llama3.1-8b-gguf the same shape as a Q4_K_M GGUF file; gpt-oss-20b the MXFP4 mixture of\n"
    "  experts' targets; qwen3-30b-a3b-gguf a mixture of experts larger than memory (Q8_0, 32.5 "
    "GB); qwen3.5-9b the hybrid's targets (Gated DeltaNet beside gated attention, and a "
    "--long-tokens request on each kind of layer); deepseek-v3.2 the 671B model from its mapped "
    "FP8 files, larger than memory (4 tokens, or --tokens; --no-analysis leaves out the analysis "
    "of every head, 40 minutes on two cores); atlas the head atlas against "
    "PyTorch, on Dask workers and on an 8B shape (--atlas-tokens, default 1000000; --no-large "
    "leaves the 8B row out)";

// "64,256": positive counts; "0" gives none.
std::vector<int> parseCounts(const std::string& text) {
    std::vector<int> counts;
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');)
        if (const int n = std::stoi(item); n > 0) counts.push_back(n);
    return counts;
}

}  // namespace

const char* usage() { return kUsage; }

std::vector<int> Options::torchTokens() const {
    std::set<int> all(tokens.begin(), tokens.end());
    all.insert(keystrokeTokens.begin(), keystrokeTokens.end());
    return {all.begin(), all.end()};
}

Options parseOptions(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) throw Error(arg + " needs a value\n" + kUsage);
            return argv[++i];
        };
        if (arg == "--backend") {
            const std::string b = next();
            if (b != "cpu") o.backends.push_back(b);
        } else if (arg == "--tokens") {
            o.tokens = parseCounts(next());
        } else if (arg == "--keystroke-tokens") {
            o.keystrokeTokens = parseCounts(next());
        } else if (arg == "--keystrokes") {
            o.keystrokes = std::max(1, std::stoi(next()));
        } else if (arg == "--long-tokens") {
            o.longTokens = std::max(0, std::stoi(next()));
        } else if (arg == "--long-repeats") {
            o.longRepeats = std::max(1, std::stoi(next()));
        } else if (arg == "--repeats") {
            o.repeats = std::max(1, std::stoi(next()));
        } else if (arg == "--rounds") {
            o.rounds = std::max(1, std::stoi(next()));
        } else if (arg == "--profile") {
            o.profile = true;
        } else if (arg == "--help" || arg == "-h") {
            o.help = true;
        } else if (arg == "--json") {
            o.json = true;
        } else if (arg == "--no-torch") {
            o.torch = false;
        } else if (arg == "--no-train") {
            o.train = false;
        } else if (arg == "--python") {
            o.python = next();
        } else if (arg == "--checkpoint") {
            o.checkpoint = next();
        } else if (arg == "--shape") {
            o.shape = next();
            if (o.shape != "gpt2" && o.shape != "llama3-8b" && o.shape != "llama3.2-1b" &&
                o.shape != "llama3.1-8b-gguf" && o.shape != "gpt-oss-20b" &&
                o.shape != "qwen3-30b-a3b-gguf" && o.shape != "qwen3.5-9b" &&
                o.shape != "deepseek-v3.2" && o.shape != "atlas")
                throw Error(
                    "--shape is gpt2, llama3.2-1b, llama3-8b, llama3.1-8b-gguf, gpt-oss-20b, "
                    "qwen3-30b-a3b-gguf, qwen3.5-9b, deepseek-v3.2 or atlas");
        } else if (arg == "--atlas-tokens") {
            o.atlasTokens = std::max(1000LL, std::stoll(next()));
        } else if (arg == "--no-large") {
            o.large = false;
        } else if (arg == "--no-analysis") {
            o.analysis = false;
        } else if (arg == "--vocab") {
            o.vocab = std::clamp(std::stoi(next()), 256, 1 << 20);
        } else if (arg == "--long-input-child") {  // the parent's own re-invocation
            o.longInputChild = next();
        } else {
            throw Error(kUsage);
        }
    }
    if (o.json && o.shape != "gpt2") throw Error("--json is for the gpt2 shape");
    return o;
}

}  // namespace qkv::bench
