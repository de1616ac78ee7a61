#include "core/report/atlas_tables.h"

#include "core/util/error.h"

namespace qkv {
namespace {

nlohmann::ordered_json number(std::optional<double> v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

// A head's number for a score: its mean; for a configuration's change also the largest (its
// best example's).
nlohmann::ordered_json headsJson(const AtlasFile& file, const HeadAtlas& atlas) {
    nlohmann::ordered_json heads = nlohmann::ordered_json::array();
    for (int l = 0; l < atlas.layers(); ++l)
        for (int h = 0; h < atlas.heads(l); ++h) {
            nlohmann::ordered_json head = {
                {"layer", l}, {"head", h}, {"kind", file.provenance().kinds.at(l)}};
            for (std::size_t s = 0; s < atlas.scores().size(); ++s) {
                const ScoreTally& t = atlas.tally(l, h, static_cast<int>(s));
                head[atlas.scores()[s]] = number(t.mean());
                if (s >= static_cast<std::size_t>(kHeadScores))
                    head["largest_" + atlas.scores()[s]] =
                        number(t.top.empty() ? std::nullopt : std::optional(t.top[0].value));
            }
            heads.push_back(head);
        }
    return heads;
}

}  // namespace

nlohmann::ordered_json atlasJson(const std::string& path, const AtlasFile& file,
                                 const HeadAtlas& atlas) {
    const AtlasProvenance& p = file.provenance();
    return {{"atlas", path},
            {"version", file.version()},
            {"model", p.model},
            {"model_digest", p.modelDigest},
            {"corpus", p.corpus},
            {"corpus_digest", p.corpusDigest},
            {"options", nlohmann::json::parse(p.options)},
            {"documents", file.documentsDone()},
            {"tokens", file.tokensDone()},
            {"sequences", atlas.sequences()},
            {"heads", headsJson(file, atlas)}};
}

nlohmann::ordered_json atlasExamplesJson(const HeadAtlas& atlas, const std::string& name) {
    const int score = atlas.scoreIndex(name);
    if (score < 0) {
        std::string known;
        for (const std::string& s : atlas.scores()) known += (known.empty() ? "" : ", ") + s;
        throw Error("no score " + name + " in this atlas: its scores are " + known);
    }
    nlohmann::ordered_json examples = nlohmann::ordered_json::array();
    for (int l = 0; l < atlas.layers(); ++l)
        for (int h = 0; h < atlas.heads(l); ++h) {
            const std::vector<AtlasExample>& top = atlas.tally(l, h, score).top;
            for (std::size_t rank = 0; rank < top.size(); ++rank) {
                const AtlasExample& e = top[rank];
                examples.push_back({{"layer", l},
                                    {"head", h},
                                    {"rank", rank + 1},
                                    {"value", e.value},
                                    {"document", e.document},
                                    {"first_token", e.first},
                                    {"query", e.query < 0 ? nlohmann::ordered_json(nullptr)
                                                          : nlohmann::ordered_json(e.query)},
                                    {"context", atlasExampleContext(atlas, e)}});
            }
        }
    return examples;
}

}  // namespace qkv
