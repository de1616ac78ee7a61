#include "tests/support/reference.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace qkv::test {
namespace {

ReferenceAttentions readAttentions(const nlohmann::json& result, const char* key) {
    ReferenceAttentions layers;
    if (!result.contains(key)) return layers;
    for (const auto& layer : result.at(key)) {
        std::vector<ReferenceMatrix> heads;
        for (const auto& head : layer) {
            ReferenceMatrix m;
            m.size = static_cast<int>(head.size());
            m.cols = m.size > 0 ? static_cast<int>(head[0].size()) : 0;
            for (const auto& row : head)
                for (const auto& v : row) m.values.push_back(v.get<double>());
            heads.push_back(std::move(m));
        }
        layers.push_back(std::move(heads));
    }
    return layers;
}

}  // namespace

ModelReference loadReference(const std::filesystem::path& jsonFile) {
    std::ifstream in(jsonFile);
    if (!in) throw std::runtime_error("cannot read " + jsonFile.string());
    const nlohmann::json doc = nlohmann::json::parse(in);
    ModelReference ref;
    ref.model = doc.at("model").get<std::string>();
    ref.tokenizer = doc.value("tokenizer", std::string());
    for (const auto& s : doc.at("sentences")) {
        ReferenceSentence sentence;
        sentence.text = s.at("text").get<std::string>();
        sentence.ids = s.at("input_ids").get<std::vector<int>>();
        sentence.tokens = s.at("tokens").get<std::vector<std::string>>();
        if (s.contains("decoder_input_ids"))
            sentence.decoderIds = s.at("decoder_input_ids").get<std::vector<int>>();
        for (auto it = s.at("results").begin(); it != s.at("results").end(); ++it) {
            ReferenceResult result;
            result.attentions = readAttentions(it.value(), "attentions");
            if (result.attentions.empty())
                result.attentions = readAttentions(it.value(), "encoder_attentions");
            result.decoderAttentions = readAttentions(it.value(), "decoder_attentions");
            result.crossAttentions = readAttentions(it.value(), "cross_attentions");
            const auto& top = it.value().at("last_token_top5");
            result.top5Ids = top.at("ids").get<std::vector<int>>();
            result.top5Logits = top.at("logits").get<std::vector<double>>();
            sentence.results.emplace(it.key(), std::move(result));
        }
        ref.sentences.push_back(std::move(sentence));
    }
    return ref;
}

std::vector<std::string> sharedModelNames(const std::filesystem::path& sharedDir) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(sharedDir / "models"))
        if (std::filesystem::exists(entry.path() / "hf_reference.json"))
            names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace qkv::test
