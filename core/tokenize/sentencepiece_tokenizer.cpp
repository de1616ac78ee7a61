#include "core/tokenize/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>

#include <nlohmann/json.hpp>

#include "core/tokenize/json_file.h"
#include "core/tokenize/pre_tokenizers.h"
#include "core/tokenize/utf8.h"
#include "core/tokenize/vocab_files.h"
#include "core/util/error.h"

namespace qkv {
namespace {

std::unique_ptr<sentencepiece::SentencePieceProcessor> loadModel(
    const std::filesystem::path& file) {
    auto model = std::make_unique<sentencepiece::SentencePieceProcessor>();
    const auto status = model->Load(file.string());
    if (!status.ok())
        throw Error(file.string() + ": not a SentencePiece model (" + status.ToString() + ")");
    return model;
}

// An option of tokenizer_config.json: the string, or the "content" of an AddedToken object.
std::string configToken(const nlohmann::json& config, const char* key, std::string fallback) {
    if (!config.contains(key)) return fallback;
    const nlohmann::json& v = config[key];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.contains("content") && v["content"].is_string())
        return v["content"].get<std::string>();
    return fallback;
}

}  // namespace

SentencePieceTokenizer::SentencePieceTokenizer() = default;
SentencePieceTokenizer::~SentencePieceTokenizer() = default;

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::t5(
    const std::filesystem::path& folder) {
    std::unique_ptr<SentencePieceTokenizer> t(new SentencePieceTokenizer());
    const nlohmann::json config = json::readOptionalObject(folder / "tokenizer_config.json");
    t->m_eos = configToken(config, "eos_token", "</s>");
    t->m_source.model = loadModel(folder / "spiece.model");
    const int pieces = t->m_source.model->GetPieceSize();
    int extraIds = 100;  // T5Tokenizer's default
    if (config.contains("extra_ids") && config["extra_ids"].is_number_integer())
        extraIds = std::clamp(config["extra_ids"].get<int>(), 0, 10000);
    for (int id = 0; id < pieces; ++id) t->m_vocab.set(t->m_source.model->IdToPiece(id), id);
    for (int n = 0; n < extraIds; ++n)  // the highest id is <extra_id_0>
        t->m_vocab.set("<extra_id_" + std::to_string(n) + ">", pieces + extraIds - 1 - n);
    if (t->m_source.model->PieceToId(t->m_eos) == t->m_source.model->unk_id() &&
        t->m_eos != t->m_unk)
        throw Error((folder / "spiece.model").string() + ": has no " + t->m_eos + " piece");
    return t;
}

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::marian(
    const std::filesystem::path& folder) {
    std::unique_ptr<SentencePieceTokenizer> t(new SentencePieceTokenizer());
    const nlohmann::json config = json::readOptionalObject(folder / "tokenizer_config.json");
    t->m_eos = configToken(config, "eos_token", "</s>");
    t->m_unk = configToken(config, "unk_token", "<unk>");
    t->m_languageCodes = true;
    t->m_vocab = readVocabJson(folder / "vocab.json");
    const bool separate = config.value("separate_vocabs", false);
    if (separate) t->m_targetVocab = readVocabJson(folder / "target_vocab.json");
    t->m_source = {loadModel(folder / "source.spm"), &t->m_vocab};
    const std::filesystem::path target = folder / "target.spm";
    t->m_target = {loadModel(std::filesystem::exists(target) ? target : folder / "source.spm"),
                   separate ? &t->m_targetVocab : &t->m_vocab};
    for (const char* special : {t->m_eos.c_str(), t->m_unk.c_str()})
        if (t->m_vocab.find(special) == Vocabulary::kMissing)
            throw Error((folder / "vocab.json").string() + ": has no " + special + " entry");
    return t;
}

int SentencePieceTokenizer::idOf(const Side& side, const std::string& piece) const {
    if (!side.ids) return side.model->PieceToId(piece);
    const int id = side.ids->find(piece);
    return id != Vocabulary::kMissing ? id : side.ids->find(m_unk);
}

std::vector<Token> SentencePieceTokenizer::encodeWith(const Side& side,
                                                      std::string_view text) const {
    utf8::validate(text, "the text");
    std::vector<Token> tokens;
    std::size_t offset = 0;
    if (m_languageCodes && text.substr(0, 2) == ">>") {  // Marian's ">>fra<<" target tag
        const std::size_t close = text.find("<<", 2);
        if (close != std::string_view::npos) {
            const std::string code(text.substr(0, close + 2));
            const int id = idOf(side, code);
            tokens.push_back({id, piece(id), 0, code.size(), false});
            offset = close + 2;
        }
    }
    const std::string rest(text.substr(offset));
    const sentencepiece::ImmutableSentencePieceText encoded =
        side.model->EncodeAsImmutableProto(rest);
    for (const auto& p : encoded.pieces()) {
        std::size_t begin = offset + p.begin(), end = offset + p.end();
        utf8::widenToCharacters(text, begin, end);
        const int id = idOf(side, p.piece());  // an unknown piece shows as the vocabulary's <unk>
        tokens.push_back({id, piece(id), begin, end, false});
    }
    const int eos = idOf(side, m_eos);
    tokens.push_back({eos, piece(eos), text.size(), text.size(), true});
    return tokens;
}

std::vector<Token> SentencePieceTokenizer::encode(std::string_view text) const {
    return encodeWith(m_source, text);
}

std::vector<Token> SentencePieceTokenizer::encodeTarget(std::string_view text) const {
    return encodeWith(m_target.model ? m_target : m_source, text);
}

std::string SentencePieceTokenizer::piece(int id) const { return m_vocab.at(id); }

std::string SentencePieceTokenizer::displayText(int id) const {
    return utf8::escapeInvalid(metaspaceAsSpaces(piece(id)));
}

}  // namespace qkv
