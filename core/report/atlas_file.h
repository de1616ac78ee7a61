#pragma once
// The head atlas as a file: an SQLite database (schema in docs/atlas.md) holding where it came
// from (model, corpus and options, with their digests, and the version that wrote it), every
// head's tally and the documents already counted. Each save is one transaction — the tallies
// and the documents they include together — so a run killed at any moment leaves the atlas of
// the documents it names, and a second run with the same provenance resumes after them.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/head_atlas.h"

namespace qkv {

// What an atlas was computed from; a run resumes an atlas only where all of it agrees.
struct AtlasProvenance {
    std::string model;               // as given (a folder, a Hub id)
    std::string modelDigest;         // atlasModelDigest
    std::string corpus;              // the file's path
    std::string corpusDigest;        // SHA-256 of the file's bytes
    std::string options;             // the options that change the numbers, as JSON
    std::vector<int> heads;          // per layer (HeadAtlas's)
    std::vector<std::string> kinds;  // per layer: Architecture::kindName

    // The first field that differs from `other`, as "model digest" ...; "" when none does.
    std::string firstDifference(const AtlasProvenance& other) const;
};

// A document counted: its index in the corpus, its tokens and the sequences they made.
struct AtlasDocument {
    std::int64_t index = 0, tokens = 0, sequences = 0;
};

class AtlasFile {
  public:
    // Creates `path`, or opens it to resume; throws qkv::Error when it is not an atlas, or is
    // one of another provenance (naming what differs).
    static std::unique_ptr<AtlasFile> openForRun(const std::filesystem::path& path,
                                                 const AtlasProvenance& provenance);
    // Opens an existing atlas to read; throws qkv::Error when it is not one.
    static std::unique_ptr<AtlasFile> openToRead(const std::filesystem::path& path);
    ~AtlasFile();

    const AtlasProvenance& provenance() const { return m_provenance; }
    std::string version() const { return m_version; }
    // The tallies saved so far; the documents they include (the next document's index) and
    // their tokens.
    HeadAtlas atlas() const;
    std::int64_t documentsDone() const;
    std::int64_t tokensDone() const;
    // Saves the atlas (its tallies replace the file's) and the documents it now includes, in one
    // transaction.
    void save(const HeadAtlas& atlas, const std::vector<AtlasDocument>& newDocuments);

    struct Database;  // the SQLite connection (atlas_file.cpp)

  private:
    AtlasFile(std::unique_ptr<Database> db, AtlasProvenance provenance, std::string version);
    std::unique_ptr<Database> m_db;
    AtlasProvenance m_provenance;
    std::string m_version;
};

// What an example shows: up to `before` tokens of its sequence ahead of the query, then the
// query's token between ⟨ ⟩ (line breaks as ⏎); for a score of the whole sequence (query -1), its
// first `before` tokens. Empty when the atlas no longer holds the sequence.
std::string atlasExampleContext(const HeadAtlas& atlas, const AtlasExample& example,
                                int before = 24);

// SHA-256 of the model's description and its token embedding as stored (dtype, shape, bytes):
// another checkpoint of the same model differs there; hashing reads the embedding once.
std::string atlasModelDigest(const class Model& model);

}  // namespace qkv
