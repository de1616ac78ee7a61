#pragma once
// What an atlas run reads, as the command line and the Python module set it up: the corpus's
// documents with their digest, the provenance the atlas file records, and where --max-tokens
// stops a run.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/model/model.h"
#include "core/report/atlas_file.h"
#include "core/report/atlas_run.h"

namespace qkv {

struct AtlasCorpus {
    std::string name;  // the file as given, or "builtin"
    std::vector<std::string> documents;
    std::string digest;  // SHA-256 of the file's bytes (of the stories joined by blank lines)
};
// The corpus file's documents (atlasDocuments), or without one the project's 400 built-in
// stories, which it may give away with itself.
AtlasCorpus atlasCorpus(const std::optional<std::filesystem::path>& file);

// The provenance of an atlas of `model` (opened from `modelName`) over `corpus`.
AtlasProvenance atlasProvenance(const Model& model, const std::string& modelName,
                                const AtlasCorpus& corpus, const AtlasRunOptions& options);

// The first document a run from document `from` (with `tokens` counted before it) does not start
// under options.maxTokens: as runAtlas stops, by tokenizing the documents. The corpus's size
// without a limit.
std::int64_t atlasStopDocument(const Model& model, const std::vector<std::string>& documents,
                               std::int64_t from, std::int64_t tokens,
                               const AtlasRunOptions& options);

}  // namespace qkv
