#include "tests/cli/cli_run.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/support/fixture_writer.h"

namespace qkv::test {

std::pair<uint32_t, uint32_t> pngSize(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    unsigned char header[24] = {};
    in.read(reinterpret_cast<char*>(header), sizeof header);
    auto be32 = [&](int at) {
        return uint32_t(header[at]) << 24 | uint32_t(header[at + 1]) << 16 |
               uint32_t(header[at + 2]) << 8 | uint32_t(header[at + 3]);
    };
    return {be32(16), be32(20)};
}

std::string shellQuote(const std::string& arg) {
    std::string q = "'";
    for (char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

namespace {

std::string commandLine(const std::vector<std::string>& args) {
    std::string command = shellQuote(QKV_CLI_PATH);
    for (const auto& a : args) command += " " + shellQuote(a);
    return command;
}

// Runs `command` through /bin/sh, its stdout and stderr captured.
CliRun runShell(std::string command) {
    TempDir dir;
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

}  // namespace

CliRun cli(const std::vector<std::string>& args, const std::string& shellPrefix) {
    return runShell(shellPrefix + " " + commandLine(args));
}

CliRun cliOnTerminal(const std::vector<std::string>& args) {
    return runShell("script -qec " + shellQuote(commandLine(args)) + " /dev/null");
}

}  // namespace qkv::test

namespace qkv::test {

long peakResidentKb(const std::vector<std::string>& args) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    const pid_t helper = fork();
    if (helper == 0) {  // its only descendants are this command's: their peak is the command's
        close(fds[0]);
        const int status = std::system((commandLine(args) + " >/dev/null 2>&1").c_str());
        rusage usage{};
        getrusage(RUSAGE_CHILDREN, &usage);
        const long peak = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? usage.ru_maxrss : -1;
        const bool written = write(fds[1], &peak, sizeof peak) == sizeof peak;
        _exit(written ? 0 : 1);
    }
    close(fds[1]);
    long peak = -1;
    if (read(fds[0], &peak, sizeof peak) != sizeof peak) peak = -1;
    close(fds[0]);
    waitpid(helper, nullptr, 0);
    return peak;
}

}  // namespace qkv::test
