#pragma once
// One qkvlab-cli subcommand: its name, a line of help, its options and what it runs.
#include <functional>
#include <string>
#include <vector>

#include "app/cli/arguments.h"
#include "core/analysis/model_survey.h"

namespace qkv::cli {

struct Command {
    std::string name;
    std::string summary;
    std::vector<OptionSpec> options;
    std::function<int(const Arguments&)> run;  // returns the exit code
};

// Every command, in help order. Each is defined in its own *_command.cpp.
Command infoCommand();
Command tokenizeCommand();
Command attentionCommand();
Command analyzeCommand();
Command trainCommand();
Command evaluateCommand();
Command experimentCommand();
Command downloadCommand();
Command surveyCommand();
Command compareCommand();
Command pythonCommand();
Command atlasCommand();
#ifdef QKV_HAS_RENDER
Command renderCommand();  // needs Qt: built with QKV_BUILD_GUI
// survey --out's figure (survey_figure.cpp, with Qt).
void writeSurveyFigure(const std::vector<ModelSurvey>& surveys, const std::string& path);
#endif

}  // namespace qkv::cli
