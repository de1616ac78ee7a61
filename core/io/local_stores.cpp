#include "core/io/local_stores.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/util/environment.h"
#include "core/util/error.h"

namespace qkv {
namespace {

constexpr const char* kPrefix = "ollama:";
constexpr const char* kModelLayer = "application/vnd.ollama.image.model";

std::filesystem::path home() {
    return std::filesystem::path(environmentVariable("HOME").value_or("."));
}

// NAME[:TAG] as its path and its tag, "latest" when none is given.
std::pair<std::string, std::string> pathAndTag(const std::string& name) {
    const size_t colon = name.rfind(':');
    if (colon != std::string::npos && name.find('/', colon) == std::string::npos)
        return {name.substr(0, colon), name.substr(colon + 1)};
    return {name, "latest"};
}

// Ollama's name rules: [HOST/][NAMESPACE/]MODEL[:TAG], default registry.ollama.ai, library,
// latest; the manifest lives at manifests/HOST/NAMESPACE/MODEL/TAG.
std::filesystem::path manifestPath(const std::string& name, const std::filesystem::path& store) {
    const auto [path, tag] = pathAndTag(name);
    std::vector<std::string> parts;
    for (size_t start = 0;;) {
        const size_t slash = path.find('/', start);
        parts.push_back(path.substr(start, slash - start));
        if (slash == std::string::npos) break;
        start = slash + 1;
    }
    const bool valid = !tag.empty() && parts.size() <= 3 &&
                       std::none_of(parts.begin(), parts.end(), [](const std::string& p) {
                           return p.empty() || p == "." || p == "..";
                       });
    if (!valid || tag.find("..") != std::string::npos)
        throw Error("ollama:" + name +
                    ": not an Ollama model name (NAME, NAME:TAG or "
                    "NAMESPACE/NAME:TAG)");
    if (parts.size() == 1) parts.insert(parts.begin(), "library");
    if (parts.size() == 2) parts.insert(parts.begin(), "registry.ollama.ai");
    return store / "manifests" / parts[0] / parts[1] / parts[2] / tag;
}

// The model layer's blob named by a manifest, checked against the manifest's size.
std::filesystem::path modelBlob(const std::filesystem::path& manifest,
                                const std::filesystem::path& store) {
    std::ifstream in(manifest);
    if (!in) throw Error(manifest.string() + ": no such Ollama manifest");
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw Error(manifest.string() + ": not a valid Ollama manifest (" + e.what() + ")");
    }
    if (!doc.is_object() || !doc.contains("layers") || !doc["layers"].is_array())
        throw Error(manifest.string() + ": not a valid Ollama manifest (no layers)");
    for (const nlohmann::json& layer : doc["layers"]) {
        if (!layer.is_object() || layer.value("mediaType", "") != kModelLayer) continue;
        const std::string digest = layer.value("digest", "");
        if (digest.rfind("sha256:", 0) != 0 || digest.size() != 71 ||
            digest.find_first_not_of("0123456789abcdef", 7) != std::string::npos)
            throw Error(manifest.string() + ": the model layer's digest \"" + digest +
                        "\" is not sha256:<64 hex digits>");
        const std::filesystem::path blob = store / "blobs" / ("sha256-" + digest.substr(7));
        std::error_code ec;
        const std::uintmax_t size = std::filesystem::file_size(blob, ec);
        if (ec) throw Error(blob.string() + ": the model's blob is missing from the Ollama store");
        if (layer.contains("size") && layer["size"].is_number_unsigned() &&
            layer["size"].get<std::uintmax_t>() != size)
            throw Error(blob.string() + ": " + std::to_string(size) + " bytes, the manifest says " +
                        std::to_string(layer["size"].get<std::uintmax_t>()) +
                        " (an interrupted pull?)");
        return blob;
    }
    throw Error(manifest.string() + ": the manifest names no model layer (" + kModelLayer + ")");
}

// Every regular file `depth` folders below `root` (none when it cannot be read).
template <class Visit>
void forEachFileAtDepth(const std::filesystem::path& root, int depth, Visit&& visit) {
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
        if (it.depth() == depth && it->is_regular_file(ec)) visit(it->path());
}

std::vector<LocalModel> sortedByName(std::vector<LocalModel> models) {
    std::sort(models.begin(), models.end(),
              [](const LocalModel& a, const LocalModel& b) { return a.name < b.name; });
    return models;
}

}  // namespace

std::filesystem::path ollamaModelsFolder() {
    if (const auto set = environmentVariable("OLLAMA_MODELS"); set && !set->empty()) return *set;
    return home() / ".ollama" / "models";
}

std::filesystem::path lmStudioHome() { return home() / ".lmstudio"; }

std::optional<std::filesystem::path> resolveOllamaModel(const std::string& location,
                                                        const std::filesystem::path& store) {
    if (location.rfind(kPrefix, 0) != 0) return std::nullopt;
    const std::string name = location.substr(std::string(kPrefix).size());
    const std::filesystem::path manifest = manifestPath(name, store);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(manifest, ec))
        throw Error(location + ": no such model in the Ollama store " + store.string() +
                    " (looked for " + manifest.string() +
                    "; set OLLAMA_MODELS to the store's folder if Ollama keeps it elsewhere, or "
                    "run 'ollama pull " +
                    name + "')");
    return modelBlob(manifest, store);
}

std::optional<std::string> ollamaModelName(const std::string& location) {
    if (location.rfind(kPrefix, 0) != 0) return std::nullopt;
    const auto [path, tag] = pathAndTag(location.substr(std::string(kPrefix).size()));
    return path + ":" + tag;
}

std::optional<std::filesystem::path> resolveLmStudioModel(const std::string& location,
                                                          const std::filesystem::path& lmHome) {
    const std::string prefix = "lmstudio:";
    if (location.rfind(prefix, 0) != 0) return std::nullopt;
    const std::filesystem::path relative = location.substr(prefix.size());
    const std::filesystem::path file = lmHome / "models" / relative;
    std::error_code ec;
    if (relative.is_absolute() || relative.lexically_normal().string().rfind("..", 0) == 0 ||
        !std::filesystem::is_regular_file(file, ec))
        throw Error(location + ": no such model file in LM Studio's models folder (" +
                    (lmHome / "models").string() + ")");
    return file;
}

std::vector<LocalModel> listOllamaModels(const std::filesystem::path& store) {
    const std::filesystem::path root = store / "manifests";
    std::vector<LocalModel> models;
    forEachFileAtDepth(root, 3, [&](const std::filesystem::path& manifest) {
        const std::filesystem::path relative = manifest.lexically_relative(root);
        auto part = relative.begin();
        const std::string host = (part++)->string(), space = (part++)->string(),
                          model = (part++)->string(), tag = part->string();
        std::string name = model + ":" + tag;
        if (space != "library" || host != "registry.ollama.ai") name = space + "/" + name;
        if (host != "registry.ollama.ai") name = host + "/" + name;
        try {
            const std::filesystem::path blob = modelBlob(manifest, store);
            models.push_back({kPrefix + name, blob, std::filesystem::file_size(blob)});
        } catch (const Error&) {
            // A manifest without a model (an embedding's, a damaged one) is not listed.
        }
    });
    return sortedByName(std::move(models));
}

std::vector<LocalModel> listLmStudioModels(const std::filesystem::path& lmHome) {
    const std::filesystem::path root = lmHome / "models";
    std::vector<LocalModel> models;
    forEachFileAtDepth(root, 2, [&](const std::filesystem::path& file) {
        std::error_code ec;
        if (file.extension() == ".gguf")
            models.push_back({"lmstudio:" + file.lexically_relative(root).generic_string(), file,
                              std::filesystem::file_size(file, ec)});
    });
    return sortedByName(std::move(models));
}

}  // namespace qkv
