#pragma once
// The GGUF models a user already has from other tools: Ollama's store ($OLLAMA_MODELS, default
// ~/.ollama/models), where a model name's manifest names the blob of its
// application/vnd.ollama.image.model layer, and LM Studio's folders (~/.lmstudio/models/
// PUBLISHER/MODEL/*.gguf).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace qkv {

// $OLLAMA_MODELS, else ~/.ollama/models.
std::filesystem::path ollamaModelsFolder();
// ~/.lmstudio (its models are under models/).
std::filesystem::path lmStudioHome();

// "ollama:NAME[:TAG]" (NAME may be NAMESPACE/NAME or HOST/NAMESPACE/NAME) -> its model blob,
// a GGUF file. nullopt when `location` does not start with "ollama:"; throws qkv::Error naming
// the manifest or blob at fault when the store lacks the model or holds it damaged.
std::optional<std::filesystem::path> resolveOllamaModel(
    const std::string& location, const std::filesystem::path& store = ollamaModelsFolder());

// "ollama:NAME[:TAG]" -> "NAME:TAG" ("latest" when no tag is given), as `ollama list` names the
// model; nullopt for another location.
std::optional<std::string> ollamaModelName(const std::string& location);

// "lmstudio:PUBLISHER/MODEL/FILE.gguf" -> that file under the LM Studio home's models/; nullopt
// for another location; throws when there is no such file.
std::optional<std::filesystem::path> resolveLmStudioModel(
    const std::string& location, const std::filesystem::path& home = lmStudioHome());

struct LocalModel {
    std::string name;            // "ollama:llama3.2:latest", "lmstudio:PUBLISHER/MODEL/FILE"
    std::filesystem::path file;  // the GGUF file
    std::uintmax_t bytes = 0;
};
// Every model of the store (name:tag, tags in name order); an absent store lists nothing.
std::vector<LocalModel> listOllamaModels(const std::filesystem::path& store = ollamaModelsFolder());
// Every GGUF file two folders down under models/ (a file directly in models/ is not LM Studio's).
std::vector<LocalModel> listLmStudioModels(const std::filesystem::path& home = lmStudioHome());

}  // namespace qkv
