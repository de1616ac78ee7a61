#include "core/report/atlas_run.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "core/model/applicable_configurations.h"
#include "core/model/forward.h"
#include "core/util/error.h"
#include "core/util/text_file.h"

namespace qkv {
namespace {

using Clock = std::chrono::steady_clock;

// Saved at most this often: an interrupted run loses at most this much of its work.
constexpr std::chrono::seconds kSaveEvery{1};

std::vector<std::string> jsonLines(const std::string& text, const std::filesystem::path& corpus) {
    std::vector<std::string> documents;
    const std::vector<std::string> lines = splitText(text, false);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const nlohmann::json line = nlohmann::json::parse(lines[i], nullptr, false);
        if (!line.is_object() || !line.contains("text") || !line["text"].is_string())
            throw Error(corpus.string() + ": JSON line " + std::to_string(i + 1) +
                        " is not an object with a \"text\" string");
        documents.push_back(line["text"].get<std::string>());
    }
    return documents;
}

}  // namespace

std::vector<std::string> atlasDocuments(const std::filesystem::path& corpus) {
    const std::string text = readTextFile(corpus, "corpus");
    std::vector<std::string> documents =
        corpus.extension() == ".jsonl" ? jsonLines(text, corpus) : splitText(text, true);
    if (documents.empty()) throw Error(corpus.string() + ": the corpus holds no text");
    return documents;
}

std::string atlasOptionsJson(const AtlasRunOptions& options) {
    return nlohmann::json{{"context", options.context},
                          {"configurations", options.configurations},
                          {"top", options.top}}
        .dump();
}

AtlasRunOptions atlasOptionsFromJson(const std::string& json) {
    AtlasRunOptions options;
    const nlohmann::json doc = nlohmann::json::parse(json, nullptr, false);
    if (!doc.is_object()) return options;
    options.context = doc.value("context", options.context);
    options.configurations = doc.value("configurations", options.configurations);
    options.top = doc.value("top", options.top);
    return options;
}

void checkAtlasOptions(const Model& model, const AtlasRunOptions& options) {
    if (!model.tokenizer())
        throw Error(model.name() +
                    " has no tokenizer, and the atlas reads text: " + model.tokenizerError());
    if (std::min(options.context, model.architecture().contextLength) < 2)
        throw Error("an atlas sequence needs at least 2 tokens (--context)");
    std::vector<std::string> seen;  // each configuration's one score, change_<name>
    for (const std::string& name : options.configurations) {
        const WConfiguration config = WConfiguration::parse(name);
        if (config.name() == "learned")
            throw Error("the atlas compares configurations with learned: give another");
        if (std::find(seen.begin(), seen.end(), config.name()) != seen.end())
            throw Error("the configuration " + config.name() + " is named twice");
        seen.push_back(config.name());
        if (const std::string why = configurationRefusal(model.architecture(), config);
            !why.empty())
            throw Error(why);
    }
}

namespace {

// Scores documents into an atlas: the model's tokenizer, one forward per sequence and one more
// per configuration compared.
class DocumentScorer {
  public:
    DocumentScorer(const Model& model, Backend& backend, const AtlasRunOptions& options)
        : m_model(model),
          m_pass(model, backend),
          m_context(std::min(options.context, model.architecture().contextLength)) {
        checkAtlasOptions(model, options);
        for (const std::string& name : options.configurations)
            m_configurations.push_back(WConfiguration::parse(name));
    }

    // Document `index` (`text`) into the atlas's open block; `cancel` is polled between
    // sequences (throws qkv::Cancelled).
    AtlasDocument score(const std::string& text, std::int64_t index, HeadAtlas& atlas,
                        const std::atomic<bool>* cancel) const {
        const std::vector<Token> tokens = m_model.tokenize(text);
        AtlasDocument done{index, static_cast<std::int64_t>(tokens.size()), 0};
        // Sequences of `context` tokens; a last one of a single token has no other key to score.
        for (std::size_t first = 0; first + 1 < tokens.size(); first += m_context) {
            if (cancel && cancel->load()) throw Cancelled();
            AtlasSequence sequence;
            sequence.document = index;
            sequence.first = static_cast<std::int64_t>(first);
            for (std::size_t t = first; t < std::min(tokens.size(), first + m_context); ++t) {
                sequence.ids.push_back(tokens[t].id);
                sequence.pieces.push_back(
                    tokens[t].end > tokens[t].begin
                        ? text.substr(tokens[t].begin, tokens[t].end - tokens[t].begin)
                        : tokens[t].piece);
            }
            ForwardRequest request;
            request.ids = sequence.ids;
            request.logits = LogitsMode::None;
            request.cancel = cancel;
            const ForwardResult learned = m_pass.run(request);
            std::vector<ForwardResult> changed;
            std::vector<const AttentionTrace*> traces;
            for (const WConfiguration& config : m_configurations) {
                request.config = config;
                request.capture.scores = false;
                changed.push_back(m_pass.run(request));
            }
            for (const ForwardResult& r : changed) traces.push_back(&r.trace);
            atlas.addSequence(sequence, learned.trace, traces);
            ++done.sequences;
        }
        return done;
    }

  private:
    const Model& m_model;
    const ForwardPass m_pass;
    int m_context;
    std::vector<WConfiguration> m_configurations;
};

bool endsABlock(std::int64_t document) { return (document + 1) % kAtlasBlock == 0; }

}  // namespace

AtlasPart atlasPart(const Model& model, Backend& backend, const std::vector<std::string>& documents,
                    std::int64_t first, const AtlasRunOptions& options) {
    const auto count = static_cast<std::int64_t>(documents.size());
    if (first < 0 || first % kAtlasBlock != 0 || count < 1 || count > kAtlasBlock)
        throw Error("an atlas part is 1 to " + std::to_string(kAtlasBlock) +
                    " documents from the start of a block (an index that is a multiple of " +
                    std::to_string(kAtlasBlock) + "), not " + std::to_string(count) +
                    " from document " + std::to_string(first));
    const DocumentScorer scorer(model, backend, options);
    const Architecture& c = model.architecture();
    std::vector<int> heads;
    for (int l = 0; l < c.layers; ++l) heads.push_back(c.headsOf(l));
    AtlasPart part{HeadAtlas(heads, options.configurations, options.top), {}};
    for (std::int64_t i = 0; i < count; ++i) {
        part.documents.push_back(scorer.score(documents[i], first + i, part.atlas, nullptr));
        if (endsABlock(first + i)) part.atlas.closeBlock();
    }
    return part;
}

AtlasRunResult runAtlas(const Model& model, Backend& backend,
                        const std::vector<std::string>& documents, AtlasFile& file,
                        const AtlasRunOptions& options,
                        const std::function<void(const AtlasProgress&)>& progress,
                        const std::atomic<bool>* cancel) {
    const DocumentScorer scorer(model, backend, options);
    HeadAtlas atlas = file.atlas();
    AtlasRunResult result;
    result.resumedFrom = result.documents = file.documentsDone();
    result.tokens = file.tokensDone();
    const std::int64_t tokensBefore = result.tokens;
    std::vector<AtlasDocument> unsaved;
    auto save = [&] {
        file.save(atlas, unsaved);
        unsaved.clear();
    };
    const auto start = Clock::now();
    auto lastSave = start;
    for (auto d = static_cast<std::size_t>(result.documents); d < documents.size(); ++d) {
        if (options.maxTokens > 0 && result.tokens >= options.maxTokens) {
            result.stoppedAtMaxTokens = true;
            break;
        }
        if (cancel && cancel->load()) {
            save();
            throw Cancelled();
        }
        // Cancelled within the document, whose first sequences are in the atlas already, the
        // run leaves the file as its last save has it (at most a second old).
        const AtlasDocument done =
            scorer.score(documents[d], static_cast<std::int64_t>(d), atlas, cancel);
        if (endsABlock(static_cast<std::int64_t>(d))) atlas.closeBlock();
        unsaved.push_back(done);
        ++result.documents;
        result.tokens += done.tokens;
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        if (progress) {
            AtlasProgress p;
            p.documents = result.documents;
            p.totalDocuments = static_cast<std::int64_t>(documents.size());
            p.tokens = result.tokens;
            p.tokensPerSecond = seconds > 0 ? (result.tokens - tokensBefore) / seconds : 0;
            const std::int64_t left = p.totalDocuments - p.documents;
            const double perDocument = seconds / (result.documents - result.resumedFrom);
            p.secondsLeft = left * perDocument;
            progress(p);
        }
        if (Clock::now() - lastSave >= kSaveEvery) {
            save();
            lastSave = Clock::now();
        }
    }
    save();
    return result;
}

}  // namespace qkv
