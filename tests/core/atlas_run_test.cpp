// The atlas of a corpus computed apart, one part per block of documents (as other processes or
// machines compute their share, encoded as bytes and decoded), joins into the one-process run's
// atlas bit for bit: sums, counts, examples and the sequences they name.
#include "core/report/atlas_run.h"

#include <gtest/gtest.h>

#include "core/report/atlas_part_codec.h"
#include "core/train/corpus.h"
#include "tests/support/atlas_compare.h"
#include "tests/support/fixture_writer.h"

namespace qkv {
namespace {

const std::string kModel = std::string(QKV_RESOURCES_DIR) + "/models/qkv-stories-learned";

AtlasProvenance provenanceOf(const Model& model) {
    AtlasProvenance p;
    p.model = kModel;
    p.modelDigest = atlasModelDigest(model);
    p.corpus = "builtin";
    p.corpusDigest = "stories";
    for (int l = 0; l < model.architecture().layers; ++l) {
        p.heads.push_back(model.architecture().headsOf(l));
        p.kinds.push_back(model.architecture().kindName(l));
    }
    return p;
}

TEST(AtlasRun, PartsPerBlockJoinIntoTheOneProcessAtlas) {
    auto model = Model::open(kModel);
    auto backend = createCpuBackend();
    std::vector<std::string> documents = train::builtinValidationStories();
    documents.resize(kAtlasBlock + 9);  // a whole block and an open one
    AtlasRunOptions options;
    options.configurations = {"shared-qk"};
    options.top = 3;
    const test::TempDir dir;
    AtlasProvenance provenance = provenanceOf(*model);
    provenance.options = atlasOptionsJson(options);
    auto file = AtlasFile::openForRun(dir.path() / "whole.atlas", provenance);
    runAtlas(*model, *backend, documents, *file, options);
    const HeadAtlas whole = file->atlas();

    HeadAtlas joined(whole.headCounts(), options.configurations, options.top);
    const auto size = static_cast<std::int64_t>(documents.size());
    for (std::int64_t first = 0; first < size; first += kAtlasBlock) {
        const std::vector<std::string> block(
            documents.begin() + first, documents.begin() + std::min(size, first + kAtlasBlock));
        // As another process has it: encoded and decoded.
        const AtlasPart part =
            decodeAtlasPart(encodeAtlasPart(atlasPart(*model, *backend, block, first, options)));
        EXPECT_EQ(part.documents.front().index, first);
        joined.append(part.atlas);
    }
    test::expectSameAtlas(whole, joined);
    EXPECT_THROW(atlasPart(*model, *backend, {"one"}, 1, options), Error);
    EXPECT_THROW(decodeAtlasPart("not cbor"), Error);
}

}  // namespace
}  // namespace qkv
