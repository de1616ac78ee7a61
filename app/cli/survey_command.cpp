// qkvlab-cli survey: Saponati et al.'s table for any list of models — per model the median over
// layers of the layer-level W_QK symmetry and directionality, the same over heads, and the
// heads' median OV copying score; with --out a figure of one box per model.
#include <cstdio>

#include "app/cli/cli_common.h"
#include "app/cli/command.h"
#include "app/cli/terminal_progress.h"
#include "core/analysis/model_survey.h"
#include "core/report/json_report.h"
#include "core/util/error.h"

namespace qkv::cli {
namespace {

const OptionSpec kModels{"models", "DIR_OR_ID...", "model folders or Hugging Face ids", true, true};

std::string attentionName(const ModelSurvey& s) { return s.causal ? "causal" : "bidirectional"; }

void printTable(const std::vector<ModelSurvey>& surveys) {
    std::printf("%-28s %-12s %-13s %6s %9s %9s %9s %9s %9s %8s\n", "model", "type", "attention",
                "layers", "layer sym", "layer dir", "head sym", "head dir", "OV copy", "W_V=W_K");
    for (const ModelSurvey& s : surveys) {
        std::printf("%-28s %-12s %-13s %6zu %9.4f %9.4f %9.4f %9.4f", s.name.c_str(),
                    s.modelType.c_str(), attentionName(s).c_str(), s.layerSymmetry.size(),
                    s.medianLayerSymmetry(), s.medianLayerDirectionality(), s.medianHeadSymmetry(),
                    s.medianHeadDirectionality());
        if (auto copying = s.medianCopying())
            std::printf(" %9.4f", *copying);
        else
            std::printf(" %9s", "-");
        std::printf(" %8d\n", s.valueIsKeyLayers);
    }
    std::printf(
        "\n(medians over layers and over heads of the learned weights; W_V=W_K: the layers whose "
        "values are their key projection by design)\n");
}

void printCsv(const std::vector<ModelSurvey>& surveys) {
    std::printf(
        "model,model_type,attention,layers,median_layer_wqk_symmetry,"
        "median_layer_wqk_directionality,median_head_wqk_symmetry,"
        "median_head_wqk_directionality,median_ov_copying_score,value_is_key_layers\n");
    for (const ModelSurvey& s : surveys) {
        // A Hub id or folder may hold a comma or a quote: quoted as RFC 4180 says.
        std::string name = "\"";
        for (char ch : s.name) name += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        name += "\"";
        std::printf("%s,%s,%s,%zu,%.7g,%.7g,%.7g,%.7g,", name.c_str(), s.modelType.c_str(),
                    attentionName(s).c_str(), s.layerSymmetry.size(), s.medianLayerSymmetry(),
                    s.medianLayerDirectionality(), s.medianHeadSymmetry(),
                    s.medianHeadDirectionality());
        if (auto copying = s.medianCopying()) std::printf("%.7g", *copying);
        std::printf(",%d\n", s.valueIsKeyLayers);
    }
}

int runSurvey(const Arguments& args) {
    const std::vector<std::string> locations = args.values(kModels.name);
    if (locations.empty()) throw UsageError("name at least one model (folder or Hub id)");
    if (args.flag("json") && args.flag("csv")) throw UsageError("--json and --csv: choose one");
    const auto out = args.value("out");
    const AnalysisOptions options = readAnalysisOptions(args);
    std::vector<ModelSurvey> surveys;
    // One model open at a time: the list runs in the memory of the largest.
    for (const std::string& location : locations) {
        try {
            const auto model = Model::open(modelFolder(location, "main"));
            surveys.push_back(
                surveyModel(*model, location, options, terminalProgress("survey " + location)));
        } catch (const Cancelled&) {
            throw;
        } catch (const Error& e) {
            throw Error(location + ": " + e.what());
        }
    }
    if (out) {
#ifdef QKV_HAS_RENDER
        writeSurveyFigure(surveys, *out);
        std::fprintf(stderr, "wrote %s\n", out->c_str());
#else
        throw Error("--out draws with Qt, and this qkvlab-cli was built without the GUI");
#endif
    }
    if (args.flag("json")) {
        nlohmann::ordered_json models = nlohmann::ordered_json::array();
        for (const ModelSurvey& s : surveys) models.push_back(surveyJson(s));
        printJson({{"models", models}});
    } else if (args.flag("csv")) {
        printCsv(surveys);
    } else {
        printTable(surveys);
    }
    return 0;
}

}  // namespace

Command surveyCommand() {
    std::vector<OptionSpec> options{kModels, gqaPairingOption(), noCopyingScoreOption()};
    options.push_back(jsonOption());
    options.push_back({"csv", "", "print CSV instead of a table"});
    options.push_back({"out", "FIGURE", "also draw one box per model: .png, .svg or .pdf"});
    return {"survey",
            "W_QK symmetry, directionality and OV copying medians of several models (Saponati et "
            "al.'s table)",
            options, runSurvey};
}

}  // namespace qkv::cli
