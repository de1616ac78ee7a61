#pragma once
// `qkvlab-cli info --figure FILE`: the provenance an exported figure carries, as a table or as
// the record's JSON. Reading needs Qt's image reader: built with the GUI (QKV_HAS_RENDER).
#include <string>

namespace qkv::cli {

// Returns the exit code; a file without provenance throws qkv::Error saying so.
int printFigureInfo(const std::string& path, bool json);

}  // namespace qkv::cli
