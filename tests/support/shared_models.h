#pragma once
// The reference folders under shared/models and which of them QKV Lab opens yet. A folder whose
// family has not landed is expected to be refused with a message naming what is missing (its
// model_type, or the config key of a feature such as rope_scaling); when the family lands it
// leaves the pending list and its folder must pass the full reference comparison.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace qkv::test {

// The family a shared model folder stands for: its name up to the first '-'
// ("qwen3" for qwen3-random-tiny, "llama3rope" for llama3rope-random-tiny).
std::string sharedFamilyName(const std::string& folderName);

// The refusal (a fragment of the error message) expected from opening a folder of a pending
// family; nullopt when the folder's family is supported.
std::optional<std::string> pendingRefusal(const std::string& folderName);

// The same for a GGUF folder of shared/gguf ("qwen3_5-gguf-tiny"): the refusal every file in it
// gives while its llama.cpp architecture is pending.
std::optional<std::string> pendingGgufRefusal(const std::string& folderName);

// GGUF folders under shared/gguf with a gguf_reference.json, sorted.
std::vector<std::string> sharedGgufNames(const std::filesystem::path& sharedDir);

// The "model_type" a shared model folder's config.json names ("" when it names none).
std::string sharedModelType(const std::filesystem::path& modelFolder);

// Shared model folders (with an hf_reference.json) whose family QKV Lab supports / has pending.
std::vector<std::string> supportedSharedModelNames(const std::filesystem::path& sharedDir);
std::vector<std::string> pendingSharedModelNames(const std::filesystem::path& sharedDir);

}  // namespace qkv::test
