#include "core/tokenize/vocab_files.h"

#include <nlohmann/json.hpp>

#include "core/tokenize/json_file.h"
#include "core/tokenize/utf8.h"
#include "core/util/error.h"
#include "core/util/mapped_file.h"

namespace qkv {
namespace {

// The lines of a UTF-8 text file, without "\n" or "\r\n"; no empty last line for a final newline.
std::vector<std::string> readTextLines(const std::filesystem::path& path) {
    const MappedFile file(path);
    const std::string_view content(reinterpret_cast<const char*>(file.data()), file.size());
    utf8::validate(content, path.string());
    std::vector<std::string> lines;
    std::size_t begin = 0;
    while (begin < content.size()) {
        std::size_t end = content.find('\n', begin);
        if (end == std::string_view::npos) end = content.size();
        std::size_t stop = end;
        if (stop > begin && content[stop - 1] == '\r') --stop;
        lines.emplace_back(content.substr(begin, stop - begin));
        begin = end + 1;
    }
    return lines;
}

}  // namespace

Vocabulary parseVocabObject(const nlohmann::json& object, const std::string& where) {
    if (!object.is_object()) json::fail(where, "expected a JSON object {\"piece\": id, ...}");
    if (object.empty()) json::fail(where, "the vocabulary is empty");
    const auto count = static_cast<long long>(object.size());
    std::vector<const std::string*> owners(object.size(), nullptr);
    Vocabulary vocab;
    for (auto it = object.begin(); it != object.end(); ++it) {
        const std::string entry = where + ": \"" + it.key() + "\"";
        const int id = json::asInt(it.value(), entry);
        if (id < 0 || id >= count)
            json::fail(entry, "id " + std::to_string(id) + " out of range 0.." +
                                  std::to_string(count - 1));
        if (owners[id])
            json::fail(entry,
                       "id " + std::to_string(id) + " is also given to \"" + *owners[id] + "\"");
        owners[id] = &it.key();
        vocab.set(it.key(), id);
    }
    return vocab;
}

Vocabulary readVocabJson(const std::filesystem::path& path) {
    return parseVocabObject(json::readFile(path), path.string());
}

std::optional<std::pair<std::string, std::string>> parseMergeLine(std::string_view line) {
    const std::size_t space = line.find(' ');
    if (space == 0 || space == std::string_view::npos || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string_view::npos)
        return std::nullopt;
    return std::pair{std::string(line.substr(0, space)), std::string(line.substr(space + 1))};
}

std::vector<std::pair<std::string, std::string>> readMergesTxt(const std::filesystem::path& path) {
    const std::vector<std::string> lines = readTextLines(path);
    std::vector<std::pair<std::string, std::string>> merges;
    merges.reserve(lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        if (line.starts_with("#version")) continue;
        auto merge = parseMergeLine(line);
        if (!merge)
            throw Error(path.string() + ": line " + std::to_string(i + 1) +
                        ": expected two pieces separated by one space, got '" + line + "'");
        merges.push_back(std::move(*merge));
    }
    return merges;
}

Vocabulary readVocabTxt(const std::filesystem::path& path) {
    const std::vector<std::string> lines = readTextLines(path);
    if (lines.empty()) throw Error(path.string() + ": the vocabulary is empty");
    Vocabulary vocab;
    for (std::size_t i = 0; i < lines.size(); ++i) vocab.set(lines[i], static_cast<int>(i));
    return vocab;
}

}  // namespace qkv
