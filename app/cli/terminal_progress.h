#pragma once
// Progress of long work on stderr, rewritten in place ("analyze: layer 12 of 32", counting
// `unit`s), when stderr is a terminal; nothing when it is a file or a pipe, so redirected output
// stays clean.
#include <string>

#include "core/hub/hub_download.h"
#include "core/util/progress.h"

namespace qkv::cli {

Progress terminalProgress(const std::string& what, const std::string& unit = "layer");

// A download's progress ("gpt2: file 3 of 4, model.safetensors 12.3 of 548.1 MB, 2% of all"),
// and one line on stderr when a download starts, terminal or not.
DownloadListener terminalDownloadProgress(const std::string& id);

}  // namespace qkv::cli
