#include <cstdio>

#include "app/cli/cli_common.h"
#include "app/cli/command.h"
#include "app/cli/terminal_progress.h"
#include "core/analysis/model_comparison.h"
#include "core/report/json_report.h"

namespace qkv::cli {
namespace {

int runCompare(const Arguments& args) {
    const auto model = openModel(args);
    const std::string againstName = args.required("against");
    const auto against = Model::open(modelFolder(againstName, "main"));
    requireComparable(*model, *against);
    const Input input = readInput(*model, args);
    auto backendA = openBackend(args);
    auto backendB = openBackend(args);
    const ModelComparison comparison = compareModels(*model, *against, input.ids, *backendA,
                                                     *backendB, terminalProgress("analyze"));
    if (args.flag("json")) {
        nlohmann::ordered_json doc = inputJson(*model, input);
        doc["against"] = against->name();
        doc["largest_attention_change"] = jsonNumber(comparison.largestAttentionChange());
        nlohmann::ordered_json layers = nlohmann::ordered_json::array();
        for (const auto& heads : comparison.layers) {
            nlohmann::ordered_json list = nlohmann::ordered_json::array();
            for (const HeadChange& h : heads)
                list.push_back({{"attention_change", jsonNumber(h.attentionChange)},
                                {"wqk_symmetry", jsonNumber(h.symmetryA)},
                                {"wqk_symmetry_against", jsonNumber(h.symmetryB)}});
            layers.push_back({{"heads", list}});
        }
        doc["layers"] = layers;
        printJson(doc);
        return 0;
    }
    std::printf("%s against %s, %zu tokens\n", model->name().c_str(), against->name().c_str(),
                input.ids.size());
    std::printf(
        "attention change: the largest total variation of a row, 1/2 sum_j |A_ij - B_ij|\n\n");
    std::printf("%5s %5s %17s %11s %11s %9s\n", "layer", "head", "attention change", "W_QK sym",
                "against", "change");
    for (size_t l = 0; l < comparison.layers.size(); ++l)
        for (size_t h = 0; h < comparison.layers[l].size(); ++h) {
            const HeadChange& c = comparison.layers[l][h];
            std::printf("%5zu %5zu %17.6f %11.6f %11.6f %9.6f\n", l, h, c.attentionChange,
                        c.symmetryA, c.symmetryB, c.symmetryB - c.symmetryA);
        }
    std::printf("\nlargest attention change %.6f\n", comparison.largestAttentionChange());
    return 0;
}

}  // namespace

Command compareCommand() {
    std::vector<OptionSpec> options = modelOptions();
    for (const OptionSpec& o : inputOptions()) options.push_back(o);
    options.push_back({"against", "DIR|FILE|ID",
                       "a second checkpoint of the same model (e.g. the F16 file of a Q4_K_M "
                       "GGUF, or the safetensors folder it came from)"});
    options.push_back(backendOption());
    options.push_back(jsonOption());
    return {"compare",
            "what quantisation changes: the same ids through two checkpoints of one model, each "
            "head's largest change of an attention row and the change of its W_QK symmetry",
            options, runCompare};
}

}  // namespace qkv::cli
