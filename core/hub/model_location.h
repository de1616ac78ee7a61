#pragma once
// Where a model the user names lives on disk, by the rules every front end shares: a folder as
// it is; a GGUF file, an `ollama:` or `lmstudio:` name resolved in their stores; a Hub id from
// the Hugging Face cache at `revision`, downloaded into it first when the cache lacks it (unless
// HF_HUB_OFFLINE is set).
#include <filesystem>
#include <string>

#include "core/hub/hub_download.h"

namespace qkv {

// Throws qkv::Error saying what is wrong with `location`.
std::filesystem::path locateModel(const std::string& location, const std::string& revision,
                                  const DownloadListener& download = {});

}  // namespace qkv
