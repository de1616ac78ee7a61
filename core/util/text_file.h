#pragma once
// A text file whole, and text split into its paragraphs (separated by blank lines) or its
// non-blank lines: the corpora of the training lab and of the head atlas.
#include <filesystem>
#include <string>
#include <vector>

namespace qkv {

// The file's bytes; throws qkv::Error naming the file as `what` ("corpus") when it cannot be
// read.
std::string readTextFile(const std::filesystem::path& file, const std::string& what);

// The paragraphs (lines joined by "\n") or the lines of `text` that hold more than blanks; a
// line's trailing "\r" is dropped.
std::vector<std::string> splitText(const std::string& text, bool paragraphs);

}  // namespace qkv
