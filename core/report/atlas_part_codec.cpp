#include "core/report/atlas_part_codec.h"

#include <nlohmann/json.hpp>

#include "core/util/error.h"

namespace qkv {

std::string encodeAtlasPart(const AtlasPart& part) {
    const HeadAtlas& a = part.atlas;
    nlohmann::json tallies = nlohmann::json::array(), examples = nlohmann::json::array();
    for (int l = 0; l < a.layers(); ++l)
        for (int h = 0; h < a.heads(l); ++h)
            for (std::size_t s = 0; s < a.scores().size(); ++s) {
                const ScoreTally& t = a.tally(l, h, static_cast<int>(s));
                tallies.push_back({t.sum, t.count, t.blockSum, t.blockCount});
                nlohmann::json top = nlohmann::json::array();
                for (const AtlasExample& e : t.top)
                    top.push_back({e.value, e.document, e.first, e.query});
                examples.push_back(top);
            }
    nlohmann::json sequences = nlohmann::json::array();
    for (const auto& [key, s] : a.exampleSequences())
        sequences.push_back({s.document, s.first, s.ids, s.pieces});
    nlohmann::json documents = nlohmann::json::array();
    for (const AtlasDocument& d : part.documents)
        documents.push_back({d.index, d.tokens, d.sequences});
    const nlohmann::json doc = {{"format", "qkvlab-atlas-part/1"},
                                {"heads", a.headCounts()},
                                {"configurations", a.configurations()},
                                {"top", a.topCount()},
                                {"sequence_count", a.sequences()},
                                {"tallies", tallies},
                                {"examples", examples},
                                {"sequences", sequences},
                                {"documents", documents}};
    const std::vector<std::uint8_t> bytes = nlohmann::json::to_cbor(doc);
    return {bytes.begin(), bytes.end()};
}

AtlasPart decodeAtlasPart(const std::string& bytes) {
    try {
        const nlohmann::json doc = nlohmann::json::from_cbor(bytes);
        if (doc.value("format", "") != "qkvlab-atlas-part/1")
            throw Error("not an atlas part (format \"" + doc.value("format", "") + "\")");
        AtlasPart part{HeadAtlas(doc.at("heads").get<std::vector<int>>(),
                                 doc.at("configurations").get<std::vector<std::string>>(),
                                 doc.at("top").get<int>()),
                       {}};
        HeadAtlas& a = part.atlas;
        const nlohmann::json& tallies = doc.at("tallies");
        const nlohmann::json& examples = doc.at("examples");
        std::size_t i = 0;
        for (int l = 0; l < a.layers(); ++l)
            for (int h = 0; h < a.heads(l); ++h)
                for (std::size_t s = 0; s < a.scores().size(); ++s, ++i) {
                    const nlohmann::json& t = tallies.at(i);
                    ScoreTally tally{t.at(0).get<double>(),
                                     t.at(1).get<std::int64_t>(),
                                     t.at(2).get<double>(),
                                     t.at(3).get<std::int64_t>(),
                                     {}};
                    for (const nlohmann::json& e : examples.at(i))
                        tally.top.push_back({e.at(0).get<double>(), e.at(1).get<std::int64_t>(),
                                             e.at(2).get<std::int64_t>(), e.at(3).get<int>()});
                    a.restoreTally(l, h, static_cast<int>(s), std::move(tally));
                }
        if (i != tallies.size()) throw Error("an atlas part of another number of tallies");
        for (const nlohmann::json& s : doc.at("sequences"))
            a.restoreSequence({s.at(0).get<std::int64_t>(), s.at(1).get<std::int64_t>(),
                               s.at(2).get<std::vector<int>>(),
                               s.at(3).get<std::vector<std::string>>()});
        a.restoreSequenceCount(doc.at("sequence_count").get<std::int64_t>());
        for (const nlohmann::json& d : doc.at("documents"))
            part.documents.push_back({d.at(0).get<std::int64_t>(), d.at(1).get<std::int64_t>(),
                                      d.at(2).get<std::int64_t>()});
        return part;
    } catch (const nlohmann::json::exception& e) {
        throw Error(std::string("not an atlas part: ") + e.what());
    }
}

}  // namespace qkv
