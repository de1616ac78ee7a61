#include "core/report/atlas_run.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

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
    return nlohmann::json{{"context", options.context}}.dump();
}

AtlasRunResult runAtlas(const Model& model, Backend& backend,
                        const std::vector<std::string>& documents, AtlasFile& file,
                        const AtlasRunOptions& options,
                        const std::function<void(const AtlasProgress&)>& progress,
                        const std::atomic<bool>* cancel) {
    if (!model.tokenizer())
        throw Error(model.name() +
                    " has no tokenizer, and the atlas reads text: " + model.tokenizerError());
    const int context = std::min(options.context, model.architecture().contextLength);
    if (context < 2) throw Error("an atlas sequence needs at least 2 tokens (--context)");
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
    const ForwardPass pass(model, backend);
    const auto start = Clock::now();
    auto lastSave = start;
    for (auto d = static_cast<std::size_t>(result.documents); d < documents.size(); ++d) {
        if (options.maxTokens > 0 && result.tokens >= options.maxTokens) {
            result.stoppedAtMaxTokens = true;
            break;
        }
        std::vector<int> ids;
        for (const Token& t : model.tokenize(documents[d])) ids.push_back(t.id);
        AtlasDocument done{static_cast<std::int64_t>(d), static_cast<std::int64_t>(ids.size()), 0};
        // Sequences of `context` tokens; a last one of a single token has no other key to score.
        for (std::size_t first = 0; first + 1 < ids.size(); first += context) {
            if (cancel && cancel->load()) {
                save();
                throw Cancelled();
            }
            ForwardRequest request;
            request.ids.assign(ids.begin() + first,
                               ids.begin() + std::min(ids.size(), first + context));
            request.cancel = cancel;
            atlas.addSequence(pass.run(request).trace, request.ids);
            ++done.sequences;
        }
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
