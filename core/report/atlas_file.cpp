#include "core/report/atlas_file.h"

#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/analysis/view_digest.h"
#include "core/model/model.h"
#include "core/report/atlas_run.h"
#include "core/util/error.h"
#include "core/util/sha256.h"

namespace qkv {
namespace {

constexpr const char* kFormat = "qkvlab-atlas/2";

const char* const kSchema = R"sql(
CREATE TABLE provenance (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE heads (layer INTEGER NOT NULL, head INTEGER NOT NULL, kind TEXT NOT NULL,
                    PRIMARY KEY (layer, head));
CREATE TABLE tallies (layer INTEGER NOT NULL, head INTEGER NOT NULL, score TEXT NOT NULL,
                      sum REAL NOT NULL, count INTEGER NOT NULL,
                      block_sum REAL NOT NULL, block_count INTEGER NOT NULL,
                      PRIMARY KEY (layer, head, score));
CREATE TABLE examples (layer INTEGER NOT NULL, head INTEGER NOT NULL, score TEXT NOT NULL,
                       rank INTEGER NOT NULL, value REAL NOT NULL, document INTEGER NOT NULL,
                       first_token INTEGER NOT NULL, query INTEGER NOT NULL,
                       PRIMARY KEY (layer, head, score, rank));
CREATE TABLE sequences (document INTEGER NOT NULL, first_token INTEGER NOT NULL,
                        ids TEXT NOT NULL, pieces TEXT NOT NULL,
                        PRIMARY KEY (document, first_token));
CREATE TABLE documents (document INTEGER PRIMARY KEY, tokens INTEGER NOT NULL,
                        sequences INTEGER NOT NULL);
)sql";

}  // namespace

struct AtlasFile::Database {
    sqlite3* db = nullptr;
    std::string path;
    ~Database() { sqlite3_close(db); }

    [[noreturn]] void fail(const std::string& what) const {
        throw Error(path + ": " + what + ": " + (db ? sqlite3_errmsg(db) : "cannot open"));
    }
    void execute(const char* sql) const {
        if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail("atlas file");
    }
};

namespace {

// One prepared statement, finalised when it goes.
class Statement {
  public:
    Statement(sqlite3* db, const char* sql, const std::string& path) : m_db(db), m_path(path) {
        if (sqlite3_prepare_v2(db, sql, -1, &m_statement, nullptr) != SQLITE_OK)
            throw Error(path + ": not a QKV Lab atlas (" + sqlite3_errmsg(db) + ")");
    }
    ~Statement() { sqlite3_finalize(m_statement); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    Statement& bind(int i, std::int64_t v) {
        sqlite3_bind_int64(m_statement, i, v);
        return *this;
    }
    Statement& bind(int i, double v) {
        sqlite3_bind_double(m_statement, i, v);
        return *this;
    }
    Statement& bind(int i, const std::string& v) {
        sqlite3_bind_text(m_statement, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    bool step() {  // true while a row is there
        const int rc = sqlite3_step(m_statement);
        if (rc == SQLITE_ROW) return true;
        if (rc != SQLITE_DONE) throw Error(m_path + ": atlas file: " + sqlite3_errmsg(m_db));
        return false;
    }
    void run() {
        step();
        sqlite3_reset(m_statement);
        sqlite3_clear_bindings(m_statement);
    }
    std::int64_t integer(int column) const { return sqlite3_column_int64(m_statement, column); }
    double real(int column) const { return sqlite3_column_double(m_statement, column); }
    std::string text(int column) const {
        const auto* t = sqlite3_column_text(m_statement, column);
        return t ? reinterpret_cast<const char*>(t) : "";
    }

  private:
    sqlite3* m_db;
    const std::string& m_path;
    sqlite3_stmt* m_statement = nullptr;
};

}  // namespace

std::string AtlasProvenance::firstDifference(const AtlasProvenance& o) const {
    if (modelDigest != o.modelDigest) return "model (digest)";
    if (corpusDigest != o.corpusDigest) return "corpus (digest)";
    if (options != o.options) return "options";
    if (heads != o.heads || kinds != o.kinds) return "layers and heads";
    return "";
}

namespace {

std::unique_ptr<AtlasFile::Database> openDatabase(const std::filesystem::path& path, int flags) {
    auto d = std::make_unique<AtlasFile::Database>();
    d->path = path.string();
    if (sqlite3_open_v2(d->path.c_str(), &d->db, flags, nullptr) != SQLITE_OK)
        d->fail("cannot open");
    sqlite3_busy_timeout(d->db, 5000);
    return d;
}

std::map<std::string, std::string> readProvenance(const AtlasFile::Database& d) {
    std::map<std::string, std::string> values;
    Statement s(d.db, "SELECT key, value FROM provenance", d.path);
    while (s.step()) values[s.text(0)] = s.text(1);
    if (values["format"] != kFormat)
        throw Error(d.path + ": not a QKV Lab atlas (format \"" + values["format"] + "\")");
    return values;
}

AtlasProvenance provenanceFrom(const AtlasFile::Database& d,
                               std::map<std::string, std::string> values) {
    AtlasProvenance p;
    p.model = values["model"];
    p.modelDigest = values["model_digest"];
    p.corpus = values["corpus"];
    p.corpusDigest = values["corpus_digest"];
    p.options = values["options"];
    Statement heads(d.db, "SELECT layer, head, kind FROM heads ORDER BY layer, head", d.path);
    while (heads.step()) {
        const auto layer = static_cast<std::size_t>(heads.integer(0));
        if (layer >= p.heads.size()) {
            p.heads.resize(layer + 1, 0);
            p.kinds.resize(layer + 1);
        }
        p.kinds[layer] = heads.text(2);
        if (heads.integer(1) >= 0) ++p.heads[layer];
    }
    return p;
}

}  // namespace

AtlasFile::AtlasFile(std::unique_ptr<Database> db, AtlasProvenance provenance, std::string version)
    : m_db(std::move(db)), m_provenance(std::move(provenance)), m_version(std::move(version)) {}

AtlasFile::~AtlasFile() = default;

std::unique_ptr<AtlasFile> AtlasFile::openForRun(const std::filesystem::path& path,
                                                 const AtlasProvenance& provenance) {
    auto d = openDatabase(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    // An empty database is a new atlas: a run killed while it created the file left it so.
    const bool exists = [&] {
        Statement tables(d->db, "SELECT COUNT(*) FROM sqlite_master", d->path);
        return tables.step() && tables.integer(0) > 0;
    }();
    if (exists) {
        auto values = readProvenance(*d);
        AtlasProvenance stored = provenanceFrom(*d, values);
        if (const std::string differs = stored.firstDifference(provenance); !differs.empty())
            throw Error(path.string() + " is an atlas of another " + differs +
                        ": give a new --out, or the model, corpus and options it was made with");
        return std::unique_ptr<AtlasFile>(
            new AtlasFile(std::move(d), std::move(stored), values["version"]));
    }
    d->execute("BEGIN");
    d->execute(kSchema);
    {
        Statement put(d->db, "INSERT INTO provenance VALUES (?, ?)", d->path);
        for (const auto& [key, value] :
             std::map<std::string, std::string>{{"format", kFormat},
                                                {"version", QKV_VERSION},
                                                {"model", provenance.model},
                                                {"model_digest", provenance.modelDigest},
                                                {"corpus", provenance.corpus},
                                                {"corpus_digest", provenance.corpusDigest},
                                                {"options", provenance.options}})
            put.bind(1, key).bind(2, value).run();
        // A layer without heads keeps a row of head -1: its kind.
        Statement head(d->db, "INSERT INTO heads VALUES (?, ?, ?)", d->path);
        for (std::size_t l = 0; l < provenance.heads.size(); ++l)
            for (int h = provenance.heads[l] > 0 ? 0 : -1; h < std::max(provenance.heads[l], 0);
                 ++h)
                head.bind(1, static_cast<std::int64_t>(l))
                    .bind(2, static_cast<std::int64_t>(h))
                    .bind(3, provenance.kinds.at(l))
                    .run();
    }
    d->execute("COMMIT");
    return std::unique_ptr<AtlasFile>(new AtlasFile(std::move(d), provenance, QKV_VERSION));
}

std::unique_ptr<AtlasFile> AtlasFile::openToRead(const std::filesystem::path& path) {
    if (!std::filesystem::exists(path)) throw Error(path.string() + ": no such atlas file");
    auto d = openDatabase(path, SQLITE_OPEN_READONLY);
    auto values = readProvenance(*d);
    AtlasProvenance p = provenanceFrom(*d, values);
    return std::unique_ptr<AtlasFile>(new AtlasFile(std::move(d), std::move(p), values["version"]));
}

HeadAtlas AtlasFile::atlas() const {
    const AtlasRunOptions options = atlasOptionsFromJson(m_provenance.options);
    HeadAtlas atlas(m_provenance.heads, options.configurations, options.top);
    const auto at = [&](const Statement& row) {
        const auto layer = static_cast<int>(row.integer(0));
        const auto head = static_cast<int>(row.integer(1));
        const int score = atlas.scoreIndex(row.text(2));
        if (layer < 0 || layer >= atlas.layers() || head < 0 || head >= atlas.heads(layer) ||
            score < 0)
            throw Error(m_db->path + ": a row of no head or score of this atlas");
        return std::tuple{layer, head, score};
    };
    std::map<std::tuple<int, int, int>, ScoreTally> tallies;
    Statement rows(m_db->db,
                   "SELECT layer, head, score, sum, count, block_sum, block_count "
                   "FROM tallies",
                   m_db->path);
    while (rows.step()) {
        ScoreTally& t = tallies[at(rows)];
        t.sum = rows.real(3);
        t.count = rows.integer(4);
        t.blockSum = rows.real(5);
        t.blockCount = rows.integer(6);
    }
    Statement examples(m_db->db,
                       "SELECT layer, head, score, value, document, first_token, query "
                       "FROM examples ORDER BY layer, head, score, rank",
                       m_db->path);
    while (examples.step())
        tallies[at(examples)].top.push_back(AtlasExample{examples.real(3), examples.integer(4),
                                                         examples.integer(5),
                                                         static_cast<int>(examples.integer(6))});
    for (auto& [where, tally] : tallies)
        atlas.restoreTally(std::get<0>(where), std::get<1>(where), std::get<2>(where),
                           std::move(tally));
    Statement sequences(m_db->db, "SELECT document, first_token, ids, pieces FROM sequences",
                        m_db->path);
    while (sequences.step()) {
        AtlasSequence sequence;
        sequence.document = sequences.integer(0);
        sequence.first = sequences.integer(1);
        const auto ids = nlohmann::json::parse(sequences.text(2), nullptr, false);
        const auto pieces = nlohmann::json::parse(sequences.text(3), nullptr, false);
        if (!ids.is_array() || !pieces.is_array() || ids.size() != pieces.size())
            throw Error(m_db->path + ": a sequence whose ids and pieces do not match");
        sequence.ids = ids.get<std::vector<int>>();
        sequence.pieces = pieces.get<std::vector<std::string>>();
        atlas.restoreSequence(std::move(sequence));
    }
    Statement count(m_db->db, "SELECT COALESCE(SUM(sequences), 0) FROM documents", m_db->path);
    atlas.restoreSequenceCount(count.step() ? count.integer(0) : 0);
    return atlas;
}

std::int64_t AtlasFile::documentsDone() const {
    Statement s(m_db->db, "SELECT COUNT(*) FROM documents", m_db->path);
    return s.step() ? s.integer(0) : 0;
}

std::int64_t AtlasFile::tokensDone() const {
    Statement s(m_db->db, "SELECT COALESCE(SUM(tokens), 0) FROM documents", m_db->path);
    return s.step() ? s.integer(0) : 0;
}

void AtlasFile::save(const HeadAtlas& atlas, const std::vector<AtlasDocument>& newDocuments) {
    m_db->execute("BEGIN IMMEDIATE");
    try {
        Statement tally(m_db->db, "INSERT OR REPLACE INTO tallies VALUES (?, ?, ?, ?, ?, ?, ?)",
                        m_db->path);
        m_db->execute("DELETE FROM examples");
        Statement example(m_db->db, "INSERT INTO examples VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                          m_db->path);
        for (int l = 0; l < atlas.layers(); ++l)
            for (int h = 0; h < atlas.heads(l); ++h)
                for (std::size_t s = 0; s < atlas.scores().size(); ++s) {
                    const ScoreTally& t = atlas.tally(l, h, static_cast<int>(s));
                    const auto layer = static_cast<std::int64_t>(l);
                    const auto head = static_cast<std::int64_t>(h);
                    tally.bind(1, layer)
                        .bind(2, head)
                        .bind(3, atlas.scores()[s])
                        .bind(4, t.sum)
                        .bind(5, t.count)
                        .bind(6, t.blockSum)
                        .bind(7, t.blockCount)
                        .run();
                    for (std::size_t rank = 0; rank < t.top.size(); ++rank)
                        example.bind(1, layer)
                            .bind(2, head)
                            .bind(3, atlas.scores()[s])
                            .bind(4, static_cast<std::int64_t>(rank))
                            .bind(5, t.top[rank].value)
                            .bind(6, t.top[rank].document)
                            .bind(7, t.top[rank].first)
                            .bind(8, static_cast<std::int64_t>(t.top[rank].query))
                            .run();
                }
        // The sequences the examples name: new ones added, those no example names now removed.
        Statement sequence(m_db->db, "INSERT OR IGNORE INTO sequences VALUES (?, ?, ?, ?)",
                           m_db->path);
        for (const auto& [where, s] : atlas.exampleSequences())
            sequence.bind(1, s.document)
                .bind(2, s.first)
                .bind(3, nlohmann::json(s.ids).dump())
                .bind(4, nlohmann::json(s.pieces).dump(-1, ' ', false,
                                                       nlohmann::json::error_handler_t::replace))
                .run();
        m_db->execute(
            "DELETE FROM sequences WHERE (document, first_token) NOT IN "
            "(SELECT document, first_token FROM examples)");
        Statement document(m_db->db, "INSERT INTO documents VALUES (?, ?, ?)", m_db->path);
        for (const AtlasDocument& d : newDocuments)
            document.bind(1, d.index).bind(2, d.tokens).bind(3, d.sequences).run();
        m_db->execute("COMMIT");
    } catch (...) {
        sqlite3_exec(m_db->db, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

std::string atlasExampleContext(const HeadAtlas& atlas, const AtlasExample& example, int before) {
    const auto found = atlas.exampleSequences().find({example.document, example.first});
    if (found == atlas.exampleSequences().end()) return "";
    const std::vector<std::string>& pieces = found->second.pieces;
    const int end = example.query >= 0 ? std::min<int>(example.query, pieces.size())
                                       : std::min<int>(before, pieces.size());
    std::string text = example.query >= 0 && end > before ? "…" : "";
    for (int t = std::max(0, end - before); t < end; ++t) text += pieces[t];
    if (example.query >= 0 && example.query < static_cast<int>(pieces.size()))
        text += "⟨" + pieces[example.query] + "⟩";
    else if (example.query < 0 && end < static_cast<int>(pieces.size()))
        text += "…";
    std::string shown;
    for (char ch : text) {
        if (ch == '\n')
            shown += "⏎";
        else
            shown += ch == '\r' || ch == '\t' ? ' ' : ch;
    }
    return shown;
}

std::string atlasModelDigest(const Model& model) {
    const Architecture& c = model.architecture();
    Sha256 digest;
    digest.update(c.family + " " + c.modelType + " " + std::to_string(c.layers) + " " +
                  std::to_string(c.heads) + " " + std::to_string(c.dModel) + " " +
                  std::to_string(c.vocabSize) + ";");
    hashView(digest, model.weights().tokenEmbedding);
    return digest.hex();
}

}  // namespace qkv
