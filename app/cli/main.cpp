// qkvlab-cli: the headless front end. Argument parsing and printing only; the work is in core.
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/command.h"
#include "core/util/error.h"
#include "core/util/memory.h"

namespace {

using qkv::cli::Command;

std::vector<Command> commands() {
    std::vector<Command> all{qkv::cli::infoCommand(), qkv::cli::tokenizeCommand(),
                             qkv::cli::attentionCommand(), qkv::cli::analyzeCommand()};
    all.push_back(qkv::cli::trainCommand());
    all.push_back(qkv::cli::evaluateCommand());
    all.push_back(qkv::cli::experimentCommand());
    all.push_back(qkv::cli::downloadCommand());
    all.push_back(qkv::cli::surveyCommand());
    all.push_back(qkv::cli::compareCommand());
    all.push_back(qkv::cli::atlasCommand());
    all.push_back(qkv::cli::pythonCommand());
#ifdef QKV_HAS_RENDER
    all.push_back(qkv::cli::renderCommand());
#endif
    return all;
}

void printHelp(const std::vector<Command>& all) {
    std::cout
        << "qkvlab-cli — inspect attention heads of Hugging Face checkpoints\n\n"
           "usage: qkvlab-cli COMMAND [options]   (qkvlab-cli COMMAND --help for its options)\n\n"
           "commands:\n";
    for (const auto& c : all) {
        std::string name = "  " + c.name;
        name.resize(14, ' ');
        std::cout << name << c.summary << "\n";
    }
}

}  // namespace

int main(int argc, char** argv) {
    qkv::keepFreedMemoryForReuse();
    const auto all = commands();
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        printHelp(all);
        return args.empty() ? 2 : 0;
    }
    const Command* command = nullptr;
    for (const auto& c : all)
        if (c.name == args[0]) command = &c;
    if (!command) {
        std::cerr << "qkvlab-cli: unknown command '" << args[0] << "' (see qkvlab-cli --help)\n";
        return 2;
    }
    args.erase(args.begin());
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
        std::string positionals;
        for (const auto& o : command->options)
            if (o.positional) positionals += " " + o.valueName;
        std::cout << "usage: qkvlab-cli " << command->name << positionals << " [options]\n"
                  << command->summary << "\n\noptions:\n"
                  << qkv::cli::formatOptions(command->options);
        return 0;
    }
    try {
        return command->run(qkv::cli::Arguments(args, command->options));
    } catch (const qkv::cli::UsageError& e) {
        std::cerr << "qkvlab-cli " << command->name << ": " << e.what() << " (see qkvlab-cli "
                  << command->name << " --help)\n";
        return 2;
    } catch (const qkv::Error& e) {
        std::cerr << "qkvlab-cli " << command->name << ": error: " << e.what() << "\n";
        return 1;
    } catch (const std::bad_alloc&) {
        std::cerr << "qkvlab-cli " << command->name << ": error: out of memory\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "qkvlab-cli " << command->name << ": internal error: " << e.what() << "\n";
        return 3;
    }
}
