#include "tests/cli/cli_run.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/support/fixture_writer.h"

namespace qkv::test {

std::string shellQuote(const std::string& arg) {
    std::string q = "'";
    for (char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

CliRun cli(const std::vector<std::string>& args, const std::string& shellPrefix) {
    TempDir dir;
    std::string command = shellPrefix + " " + shellQuote(QKV_CLI_PATH);
    for (const auto& a : args) command += " " + shellQuote(a);
    command += " >" + shellQuote((dir.path() / "out").string()) + " 2>" +
               shellQuote((dir.path() / "err").string());
    CliRun run;
    const int status = std::system(command.c_str());
    run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    auto slurp = [](const std::filesystem::path& p) {
        std::ifstream in(p);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    };
    run.out = slurp(dir.path() / "out");
    run.err = slurp(dir.path() / "err");
    return run;
}

}  // namespace qkv::test
