#include "core/report/atlas_job.h"

#include "core/train/corpus.h"
#include "core/util/sha256.h"

namespace qkv {

AtlasCorpus atlasCorpus(const std::optional<std::filesystem::path>& file) {
    AtlasCorpus corpus;
    if (file) {
        corpus.name = file->string();
        corpus.documents = atlasDocuments(*file);
        corpus.digest = fileSha256(*file);
        return corpus;
    }
    corpus.name = train::kBuiltinCorpus;
    corpus.documents = train::builtinValidationStories();
    Sha256 digest;
    for (const std::string& story : corpus.documents) digest.update(story + "\n\n");
    corpus.digest = digest.hex();
    return corpus;
}

AtlasProvenance atlasProvenance(const Model& model, const std::string& modelName,
                                const AtlasCorpus& corpus, const AtlasRunOptions& options) {
    AtlasProvenance p;
    p.model = modelName;
    p.modelDigest = atlasModelDigest(model);
    p.corpus = corpus.name;
    p.corpusDigest = corpus.digest;
    p.options = atlasOptionsJson(options);
    const Architecture& c = model.architecture();
    for (int l = 0; l < c.layers; ++l) {
        p.heads.push_back(c.headsOf(l));
        p.kinds.push_back(c.kindName(l));
    }
    return p;
}

std::int64_t atlasStopDocument(const Model& model, const std::vector<std::string>& documents,
                               std::int64_t from, std::int64_t tokens,
                               const AtlasRunOptions& options) {
    auto d = from;
    const auto size = static_cast<std::int64_t>(documents.size());
    if (options.maxTokens <= 0) return size;
    for (; d < size && tokens < options.maxTokens; ++d)
        tokens += static_cast<std::int64_t>(model.tokenize(documents[d]).size());
    return d;
}

}  // namespace qkv
