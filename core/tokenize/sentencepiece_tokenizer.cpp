#include "core/tokenize/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>

#include <nlohmann/json.hpp>

#include "core/tokenize/json_file.h"
#include "core/tokenize/utf8.h"
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

std::unordered_map<std::string, int> loadVocabulary(const std::filesystem::path& file) {
    const nlohmann::json doc = json::readFile(file);
    if (!doc.is_object() || doc.empty())
        throw Error(file.string() + ": expected an object of pieces to ids");
    std::unordered_map<std::string, int> ids;
    for (const auto& [piece, id] : doc.items()) {
        if (!id.is_number_integer() || id.get<long long>() < 0 || id.get<long long>() >= (1 << 24))
            throw Error(file.string() + ": the id of \"" + piece + "\" is not an id");
        ids[piece] = id.get<int>();
    }
    return ids;
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
    for (int id = 0; id < pieces; ++id) t->m_pieces.push_back(t->m_source.model->IdToPiece(id));
    for (int n = extraIds - 1; n >= 0; --n)
        t->m_pieces.push_back("<extra_id_" + std::to_string(n) + ">");
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
    t->m_vocab = loadVocabulary(folder / "vocab.json");
    const bool separate = config.value("separate_vocabs", false);
    if (separate) t->m_targetVocab = loadVocabulary(folder / "target_vocab.json");
    t->m_source = {loadModel(folder / "source.spm"), &t->m_vocab};
    const std::filesystem::path target = folder / "target.spm";
    t->m_target = {loadModel(std::filesystem::exists(target) ? target : folder / "source.spm"),
                   separate ? &t->m_targetVocab : &t->m_vocab};
    for (const char* special : {t->m_eos.c_str(), t->m_unk.c_str()})
        if (!t->m_vocab.count(special))
            throw Error((folder / "vocab.json").string() + ": has no " + special + " entry");
    int size = 0;
    for (const auto& [piece, id] : t->m_vocab) size = std::max(size, id + 1);
    t->m_pieces.assign(size, std::string());
    for (const auto& [piece, id] : t->m_vocab) t->m_pieces[id] = piece;
    return t;
}

int SentencePieceTokenizer::idOf(const Side& side, const std::string& piece) const {
    if (!side.ids) return side.model->PieceToId(piece);
    const auto it = side.ids->find(piece);
    return it != side.ids->end() ? it->second : side.ids->at(m_unk);
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

std::string SentencePieceTokenizer::piece(int id) const {
    if (id < 0 || id >= vocabSize())
        throw Error("token id " + std::to_string(id) + " is outside the vocabulary (0.." +
                    std::to_string(vocabSize() - 1) + ")");
    return m_pieces[id];
}

std::string SentencePieceTokenizer::displayText(int id) const {
    const std::string p = piece(id);
    std::string shown;
    static const std::string kSpace = "\xE2\x96\x81";  // "▁", SentencePiece's word boundary
    for (std::size_t i = 0; i < p.size();) {
        if (p.compare(i, kSpace.size(), kSpace) == 0) {
            shown += ' ';
            i += kSpace.size();
        } else {
            shown += p[i++];
        }
    }
    return utf8::escapeInvalid(shown);
}

}  // namespace qkv
