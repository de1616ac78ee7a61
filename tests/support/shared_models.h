#pragma once
// The reference folders under shared/models and which of them QKV Lab opens yet. A folder whose
// family has not landed is expected to be refused by name ("unsupported architecture"); when the
// family lands it leaves kPendingFamilies and its folder must pass the full reference comparison.
#include <filesystem>
#include <string>
#include <vector>

namespace qkv::test {

// config.json "model_type" values that have reference folders but are not supported yet.
bool isPendingFamily(const std::string& modelType);

// The "model_type" a shared model folder's config.json names ("" when it names none).
std::string sharedModelType(const std::filesystem::path& modelFolder);

// Shared model folders (with an hf_reference.json) whose family QKV Lab supports / has pending.
std::vector<std::string> supportedSharedModelNames(const std::filesystem::path& sharedDir);
std::vector<std::string> pendingSharedModelNames(const std::filesystem::path& sharedDir);

}  // namespace qkv::test
