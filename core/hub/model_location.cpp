#include "core/hub/model_location.h"

#include "core/hub/hub_settings.h"
#include "core/io/hub_cache.h"

namespace qkv {

std::filesystem::path locateModel(const std::string& location, const std::string& revision,
                                  const DownloadListener& download) {
    std::error_code ec;
    if (std::filesystem::is_directory(location, ec)) return location;
    // A local store's name stays a name: Model::open resolves it and keeps it as the model's.
    if (location.rfind("ollama:", 0) == 0 || location.rfind("lmstudio:", 0) == 0) {
        resolveModelLocation(location, revision);  // says now what is wrong with it
        return location;
    }
    if (!isHubModelId(location) || std::filesystem::exists(location, ec))  // a folder, a GGUF
        return resolveModelLocation(location, revision);  // says what is wrong with it
    const HubSettings hub = HubSettings::fromEnvironment();
    if (auto snapshot = findCachedSnapshot(location, revision, hub.cache)) return *snapshot;
    return downloadModel(location, revision, hub, download).snapshot;
}

}  // namespace qkv
