// Everything QKV Lab knows of a model family is in its file under core/model/families/: no other
// source compares a model_type, a family's name or a GGUF architecture with a string.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "core/model/model_family.h"

namespace qkv {
namespace {

namespace fs = std::filesystem;

std::set<std::string> familyNames() {
    std::set<std::string> names;
    for (const ModelFamily& f : modelFamilies()) {
        names.insert(f.name);
        names.insert(f.modelTypes.begin(), f.modelTypes.end());
        names.insert(f.gguf.architectures.begin(), f.gguf.architectures.end());
    }
    return names;
}

// `== "name"`, `"name" !=`, `startsWith(x, "name")`, `.starts_with("name")` of a family's name.
std::regex comparisonOf(const std::string& name) {
    const std::string quoted =
        "\"" + std::regex_replace(name, std::regex(R"([.+-])"), R"(\$&)") + "\"";
    return std::regex("(==|!=)\\s*" + quoted + "|" + quoted +
                      "\\s*(==|!=)|starts_?[wW]ith\\([^;]*" + quoted);
}

TEST(OneFamilyOneFile, NoSourceOutsideTheFamiliesComparesTheirNames) {
    const fs::path root = QKV_SOURCE_DIR;
    // Each name's pattern, run only on lines that hold the quoted name: std::regex is slow, and
    // the lines are many.
    struct Pattern {
        std::string name, quoted;
        std::regex comparison;
    };
    std::vector<Pattern> patterns;
    for (const std::string& name : familyNames())
        patterns.push_back({name, "\"" + name + "\"", comparisonOf(name)});
    std::vector<std::string> found;
    int files = 0;
    // The product's sources; bench/ names the shapes it measures ("--shape gpt2"), not families.
    for (const char* top : {"core", "gpu", "ui", "app", "python"}) {
        for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
            const fs::path& path = entry.path();
            if (!entry.is_regular_file() ||
                (path.extension() != ".cpp" && path.extension() != ".h"))
                continue;
            const std::string relative = fs::relative(path, root).generic_string();
            if (relative.starts_with("core/model/families/")) continue;
            ++files;
            std::ifstream in(path);
            std::string line;
            for (int number = 1; std::getline(in, line); ++number)
                for (const Pattern& p : patterns)
                    if (line.find(p.quoted) != std::string::npos &&
                        std::regex_search(line, p.comparison))
                        found.push_back(relative + ":" + std::to_string(number) + " (" + p.name +
                                        ")");
        }
    }
    EXPECT_GT(files, 300);  // the tree was found
    std::ostringstream list;
    for (const std::string& where : found) list << "\n  " << where;
    EXPECT_TRUE(found.empty()) << "family names compared outside core/model/families/:"
                               << list.str();
}

// The check sees what it is for.
TEST(OneFamilyOneFile, TheCheckFindsAComparison) {
    EXPECT_TRUE(std::regex_search(R"(if (r.arch == "gemma2"))", comparisonOf("gemma2")));
    EXPECT_TRUE(std::regex_search(R"(modelType != "opt")", comparisonOf("opt")));
    EXPECT_TRUE(std::regex_search(R"(startsWith(type, "qwen2"))", comparisonOf("qwen2")));
    EXPECT_TRUE(std::regex_search(R"(arch == "gpt-oss")", comparisonOf("gpt-oss")));
    EXPECT_FALSE(std::regex_search(R"({"gemma2", C::CausalLm})", comparisonOf("gemma2")));
}

}  // namespace
}  // namespace qkv
