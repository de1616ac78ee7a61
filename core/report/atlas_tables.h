#pragma once
// An atlas's tables as `qkvlab-cli atlas --show --json` prints them and the Python module returns
// them (docs/atlas.md): the summary with one object per head, and a score's examples.
#include <nlohmann/json.hpp>
#include <string>

#include "core/analysis/head_atlas.h"
#include "core/report/atlas_file.h"

namespace qkv {

// {"atlas", "version", "model", ..., "heads": [{"layer", "head", "kind", <score>: mean, ...,
// "largest_change_<c>": ...}]}
nlohmann::ordered_json atlasJson(const std::string& path, const AtlasFile& file,
                                 const HeadAtlas& atlas);

// Every head's best examples for the score (HeadAtlas::scoreIndex): {"layer", "head", "rank"
// (from 1), "value", "document", "first_token", "query" (null for the whole sequence),
// "context"}. Throws qkv::Error naming the atlas's scores for a score it does not have.
nlohmann::ordered_json atlasExamplesJson(const HeadAtlas& atlas, const std::string& score);

}  // namespace qkv
