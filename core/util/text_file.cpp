#include "core/util/text_file.h"

#include <fstream>
#include <sstream>

#include "core/util/error.h"

namespace qkv {

std::string readTextFile(const std::filesystem::path& file, const std::string& what) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error(file.string() + ": cannot read the " + what + " file");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> splitText(const std::string& text, bool paragraphs) {
    std::vector<std::string> documents;
    std::string current;
    std::istringstream lines(text);
    std::string line;
    auto flush = [&] {
        if (current.find_first_not_of(" \t\r\n") != std::string::npos) documents.push_back(current);
        current.clear();
    };
    while (std::getline(lines, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const bool blank = line.find_first_not_of(" \t") == std::string::npos;
        if (!paragraphs || blank) {
            if (!paragraphs) current = line;
            flush();
        } else {
            current += current.empty() ? line : "\n" + line;
        }
    }
    flush();
    return documents;
}

}  // namespace qkv
