#include "core/io/hub_cache.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/io/gguf.h"
#include "core/io/local_stores.h"
#include "core/util/environment.h"
#include "core/util/error.h"

namespace qkv {

std::filesystem::path hubHomeDir() {
    if (auto home = environmentVariable("HF_HOME")) return *home;
    if (auto xdg = environmentVariable("XDG_CACHE_HOME"))
        return std::filesystem::path(*xdg) / "huggingface";
    return std::filesystem::path(environmentVariable("HOME").value_or(".")) / ".cache" /
           "huggingface";
}

std::filesystem::path hubCacheDir() {
    if (auto cache = environmentVariable("HF_HUB_CACHE")) return *cache;
    return hubHomeDir() / "hub";
}

std::string hubRepositoryFolder(const std::string& id) {
    std::string name = "models--";
    for (char c : id) name += c == '/' ? std::string("--") : std::string(1, c);
    return name;
}

bool isCommitHash(const std::string& revision) {
    if (revision.size() != 40) return false;
    for (char c : revision)
        if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

bool isHubModelId(std::string_view text) {
    if (text.empty() || text.size() > 96) return false;
    if (text.find("--") != std::string_view::npos || text.find("..") != std::string_view::npos)
        return false;
    const size_t slash = text.find('/');
    if (slash != std::string_view::npos && (slash == 0 || slash + 1 == text.size() ||
                                            text.find('/', slash + 1) != std::string_view::npos))
        return false;
    for (char c : text)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.' &&
            c != '/')
            return false;
    return text.front() != '.' && text.front() != '-';
}

std::optional<std::filesystem::path> findCachedSnapshot(const std::string& id,
                                                        const std::string& revision,
                                                        const std::filesystem::path& cache) {
    if (!isHubModelId(id)) return std::nullopt;
    const std::filesystem::path repo = cache / hubRepositoryFolder(id);
    std::string commit = revision;
    if (!isCommitHash(revision)) {
        std::ifstream ref(repo / "refs" / revision);
        if (!ref || !std::getline(ref, commit) || !isCommitHash(commit)) return std::nullopt;
    }
    const std::filesystem::path snapshot = repo / "snapshots" / commit;
    std::error_code ec;
    if (!std::filesystem::is_directory(snapshot, ec)) return std::nullopt;
    return snapshot;
}

namespace {

// The model id a repository folder's name encodes ("models--ORG--NAME"), or nullopt.
std::optional<std::string> idOfRepositoryFolder(const std::string& repo) {
    if (repo.rfind("models--", 0) != 0) return std::nullopt;
    std::string id;
    for (size_t i = 8; i < repo.size(); ++i) {
        if (repo.compare(i, 2, "--") == 0) {
            id += '/';
            ++i;
        } else {
            id += repo[i];
        }
    }
    return isHubModelId(id) ? std::optional<std::string>(id) : std::nullopt;
}

}  // namespace

std::optional<std::string> hubIdOfSnapshot(const std::filesystem::path& folder) {
    const std::filesystem::path snapshot =
        folder.filename().empty() ? folder.parent_path() : folder;
    const std::filesystem::path snapshots = snapshot.parent_path();
    if (snapshots.filename() != "snapshots") return std::nullopt;
    return idOfRepositoryFolder(snapshots.parent_path().filename().string());
}

namespace {

// config.json's model_type, or empty: a listing names what it can and never fails on one folder.
std::string modelTypeOf(const std::filesystem::path& snapshot) {
    std::error_code ec;
    const auto path = snapshot / "config.json";
    if (std::filesystem::file_size(path, ec) > (1u << 20) || ec) return {};  // not a config
    std::ifstream in(path);
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (!doc.is_object() || !doc.contains("model_type") || !doc["model_type"].is_string())
        return {};
    return doc["model_type"].get<std::string>();
}

}  // namespace

std::vector<CachedModel> listCachedModels(const std::filesystem::path& cache) {
    std::vector<CachedModel> models;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(cache, ec)) {
        const auto id = idOfRepositoryFolder(entry.path().filename().string());
        if (!id || !entry.is_directory(ec)) continue;
        CachedModel m;
        m.id = *id;
        if (auto main = findCachedSnapshot(*id, "main", cache)) {
            m.revision = "main";
            m.snapshot = *main;
        } else {  // no branch names a snapshot: the newest one
            std::filesystem::file_time_type newest{};
            for (const auto& s :
                 std::filesystem::directory_iterator(entry.path() / "snapshots", ec)) {
                const auto time = s.last_write_time(ec);
                if (s.is_directory(ec) && (m.snapshot.empty() || time > newest)) {
                    m.snapshot = s.path();
                    newest = time;
                }
            }
            if (m.snapshot.empty()) continue;
            m.revision = m.snapshot.filename().string();
        }
        for (const auto& blob : std::filesystem::directory_iterator(entry.path() / "blobs", ec))
            if (blob.is_regular_file(ec)) m.bytes += blob.file_size(ec);
        m.modelType = modelTypeOf(m.snapshot);
        models.push_back(std::move(m));
    }
    std::sort(models.begin(), models.end(),
              [](const CachedModel& a, const CachedModel& b) { return a.id < b.id; });
    return models;
}

std::filesystem::path resolveModelLocation(const std::string& location,
                                           const std::string& revision) {
    std::error_code ec;
    if (std::filesystem::is_directory(location, ec)) return location;
    if (isGgufFile(location)) return location;  // a GGUF file is a model of its own
    if (auto blob = resolveOllamaModel(location)) return *blob;
    if (auto file = resolveLmStudioModel(location)) return *file;
    if (isHubModelId(location) && !std::filesystem::exists(location, ec)) {
        const std::filesystem::path cache = hubCacheDir();
        if (auto snapshot = findCachedSnapshot(location, revision, cache)) return *snapshot;
        const std::string which = revision == "main" ? "" : " at revision " + revision;
        throw Error(location + ": no such folder, and the Hugging Face cache (" + cache.string() +
                    ") holds no snapshot of a model with this id" + which +
                    " (qkvlab-cli download, from_pretrained or huggingface-cli download put "
                    "models there)");
    }
    throw Error(location +
                ": not a folder (a model is a folder with config.json and model.safetensors, a "
                "GGUF file, ollama:NAME[:TAG], lmstudio:PUBLISHER/MODEL/FILE.gguf or a Hugging "
                "Face model id such as gpt2 or EleutherAI/pythia-160m)");
}

}  // namespace qkv
