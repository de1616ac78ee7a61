#pragma once
// Computing a head atlas over a corpus into an atlas file (atlas_file.h): each document is
// tokenized by the model's tokenizer and cut into sequences of at most `context` tokens, each
// run once with every head captured and scored (head_atlas.h). The file is saved about every
// second, so an interrupted run loses at most that and resumes where the file stops.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/backend/backend.h"
#include "core/model/model.h"
#include "core/report/atlas_file.h"

namespace qkv {

// A corpus's documents: JSON Lines (a file ending in .jsonl, each line an object with a "text"
// string) or UTF-8 text, one document per paragraph (separated by blank lines). Throws
// qkv::Error naming the file (and the line of a bad JSON line); a corpus of no document too.
std::vector<std::string> atlasDocuments(const std::filesystem::path& corpus);

struct AtlasRunOptions {
    int context = 256;           // tokens per sequence (the model's context where shorter)
    std::int64_t maxTokens = 0;  // no document starts once this many are counted; 0: all
    // Configurations whose change against the learned one is scored (WConfiguration names).
    std::vector<std::string> configurations;
    int top = kAtlasDefaultTop;  // examples kept per head and score
};

// The options that change the numbers, as the atlas file records them (--max-tokens only says
// where a run stops: a later run may go on): "context", "configurations", "top".
std::string atlasOptionsJson(const AtlasRunOptions& options);
// The options an atlas file records, back: each key missing (or text that is no JSON object)
// keeps AtlasRunOptions's default.
AtlasRunOptions atlasOptionsFromJson(const std::string& json);

struct AtlasProgress {
    std::int64_t documents = 0, totalDocuments = 0;
    std::int64_t tokens = 0;     // done, this run and earlier ones
    double tokensPerSecond = 0;  // this run's
    double secondsLeft = -1;     // by this run's rate; < 0 while unknown
};

struct AtlasRunResult {
    std::int64_t documents = 0, tokens = 0;  // in the file now
    std::int64_t resumedFrom = 0;            // documents the file held before this run
    bool stoppedAtMaxTokens = false;
};

// Throws qkv::Error for options the model cannot run: no tokenizer, a context under 2 tokens, a
// configuration it does not define (or learned itself, or one named twice). runAtlas checks them
// too; a caller checks first to create no file for a run that cannot start.
void checkAtlasOptions(const Model& model, const AtlasRunOptions& options);

// Continues `file` over `documents` (from its documentsDone()). `progress` is told after each
// document; `cancel` is polled between sequences (qkv::Cancelled is thrown after a last save).
// Throws qkv::Error for a configuration the model cannot run (naming it) before any document.
AtlasRunResult runAtlas(const Model& model, Backend& backend,
                        const std::vector<std::string>& documents, AtlasFile& file,
                        const AtlasRunOptions& options,
                        const std::function<void(const AtlasProgress&)>& progress = {},
                        const std::atomic<bool>* cancel = nullptr);

// Documents computed apart, as another process computes its share of a corpus: `documents` are
// the corpus's from index `first`, which starts a block (kAtlasBlock), and at most that block's.
// HeadAtlas::append joins the part to the atlas of the documents before `first`, as if one run
// had computed them all.
struct AtlasPart {
    HeadAtlas atlas;
    std::vector<AtlasDocument> documents;
};
AtlasPart atlasPart(const Model& model, Backend& backend, const std::vector<std::string>& documents,
                    std::int64_t first, const AtlasRunOptions& options);

}  // namespace qkv
