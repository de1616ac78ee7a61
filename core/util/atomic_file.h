#pragma once
// Writes a file all-or-nothing: the bytes go to a temporary file in the same folder, are flushed
// to disk, and the temporary is renamed over the target (keeping a replaced file's permissions).
// A full disk, an unwritable folder or an exception from the writer throws and leaves any
// previous file untouched, with no temporary file left behind.
#include <filesystem>
#include <functional>
#include <ostream>
#include <string_view>

namespace qkv {

// `write` streams the content; a stream failure (e.g. ENOSPC) aborts the replacement.
void writeFileAtomically(const std::filesystem::path& target,
                         const std::function<void(std::ostream&)>& write);
void writeFileAtomically(const std::filesystem::path& target, std::string_view content);

}  // namespace qkv
