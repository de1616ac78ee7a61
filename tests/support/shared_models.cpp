#include "tests/support/shared_models.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tests/support/reference.h"

namespace qkv::test {
namespace {

// Families whose reference folders arrived before their reader: each entry leaves this list in
// the commit that makes the family open.
const std::vector<std::string> kPendingFamilies = {};

std::vector<std::string> sharedModelsWhere(const std::filesystem::path& sharedDir, bool pending) {
    std::vector<std::string> names;
    for (const std::string& name : sharedModelNames(sharedDir))
        if (isPendingFamily(sharedModelType(sharedDir / "models" / name)) == pending)
            names.push_back(name);
    return names;
}

}  // namespace

bool isPendingFamily(const std::string& modelType) {
    return std::find(kPendingFamilies.begin(), kPendingFamilies.end(), modelType) !=
           kPendingFamilies.end();
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
