#include "tests/support/shared_models.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tests/support/reference.h"

namespace qkv::test {
namespace {

// A family whose reference folders arrived before its reader, and what opening one says today.
struct PendingFamily {
    const char* name;     // sharedFamilyName of its folders
    const char* refusal;  // a fragment of the error message
};

// Each entry leaves this list in the commit that makes the family open.
const std::vector<PendingFamily> kPendingFamilies = {};

// Likewise for the GGUF folders of shared/gguf, whose refusal names llama.cpp's architecture.
const std::vector<PendingFamily> kPendingGgufFamilies = {};

std::optional<std::string> refusalIn(const std::vector<PendingFamily>& families,
                                     const std::string& folderName) {
    const std::string family = sharedFamilyName(folderName);
    for (const PendingFamily& f : families)
        if (family == f.name) return std::string(f.refusal);
    return std::nullopt;
}

std::vector<std::string> sharedModelsWhere(const std::filesystem::path& sharedDir, bool pending) {
    std::vector<std::string> names;
    for (const std::string& name : sharedModelNames(sharedDir))
        if (pendingRefusal(name).has_value() == pending) names.push_back(name);
    return names;
}

}  // namespace

std::string sharedFamilyName(const std::string& folderName) {
    return folderName.substr(0, folderName.find('-'));
}

std::optional<std::string> pendingRefusal(const std::string& folderName) {
    return refusalIn(kPendingFamilies, folderName);
}

std::optional<std::string> pendingGgufRefusal(const std::string& folderName) {
    return refusalIn(kPendingGgufFamilies, folderName);
}

std::vector<std::string> sharedGgufNames(const std::filesystem::path& sharedDir) {
    return foldersHolding(sharedDir / "gguf", "gguf_reference.json");
}

std::string sharedModelType(const std::filesystem::path& modelFolder) {
    std::ifstream in(modelFolder / "config.json");
    if (!in) throw std::runtime_error("cannot read " + (modelFolder / "config.json").string());
    const nlohmann::json doc = nlohmann::json::parse(in);
    return doc.value("model_type", std::string());
}

std::vector<std::string> supportedSharedModelNames(const std::filesystem::path& sharedDir) {
    return sharedModelsWhere(sharedDir, false);
}

std::vector<std::string> pendingSharedModelNames(const std::filesystem::path& sharedDir) {
    return sharedModelsWhere(sharedDir, true);
}

}  // namespace qkv::test
