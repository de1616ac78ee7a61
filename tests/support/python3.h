#pragma once
// Running the system's Python 3 from tests, for the scripts QKV Lab writes for Hugging Face
// transformers. /usr/bin/python3, or $QKV_PYTHON3 when set; tests that need it, or one of its
// modules, skip with a message saying what is missing.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace qkv::test {

inline std::string python3Path() {
    const char* overridden = std::getenv("QKV_PYTHON3");
    return overridden && *overridden ? overridden : "/usr/bin/python3";
}

inline std::string quotedForShell(const std::string& arg) {
    std::string q = "'";
    for (char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

struct PythonRun {
    int exitCode = -1;
    std::string output;  // stdout and stderr together
};

// Runs python3 with the shell-quoted `arguments`, in a shell, capturing its output in `log`.
inline PythonRun runPython3(const std::vector<std::string>& arguments,
                            const std::filesystem::path& log) {
    std::string command = quotedForShell(python3Path());
    for (const std::string& a : arguments) command += " " + quotedForShell(a);
    command += " >" + quotedForShell(log.string()) + " 2>&1";
    PythonRun run;
    const int status = std::system(command.c_str());
    run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    run.output = text.str();
    return run;
}

inline bool hasPython3() {
    std::error_code ec;
    return std::filesystem::exists(python3Path(), ec);
}

// Whether python3 imports every module named (space-separated: "torch transformers").
inline bool python3Imports(const std::string& modules, const std::filesystem::path& scratch) {
    std::string imports;
    for (std::istringstream in(modules); in;) {
        std::string m;
        if (in >> m) imports += "import " + m + "\n";
    }
    return runPython3({"-c", imports}, scratch / "imports.log").exitCode == 0;
}

}  // namespace qkv::test

#define QKV_REQUIRE_PYTHON3()                                                             \
    if (!::qkv::test::hasPython3())                                                       \
    GTEST_SKIP() << ::qkv::test::python3Path()                                            \
                 << " not found (set QKV_PYTHON3 to another interpreter); Python checks " \
                    "skipped"
