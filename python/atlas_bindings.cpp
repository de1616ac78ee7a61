#include "python/atlas_bindings.h"

#include <pybind11/stl.h>

#include <optional>

#include "core/model/w_configuration.h"
#include "core/report/atlas_job.h"
#include "core/report/atlas_part_codec.h"
#include "core/report/atlas_tables.h"
#include "gpu/backend_factory.h"
#include "python/python_support.h"

namespace qkv::python {
namespace {

// One atlas file being computed: over its corpus from where the file stops, here (runAtlas) or
// from parts other processes computed, joined in document order.
class AtlasRun {
  public:
    AtlasRun(const NativeModel& model, const std::string& location, const std::string& corpus,
             const std::string& out, int context, std::vector<std::string> configurations,
             int examples, std::int64_t maxTokens)
        : m_model(model), m_out(out) {
        const Architecture& c = model.model->architecture();
        m_options.context = std::min(context, c.contextLength);
        for (const std::string& name : configurations)
            m_options.configurations.push_back(WConfiguration::parse(name).name());
        if (examples < 1) throw Error("examples: at least 1 per head and score");
        m_options.top = examples;
        if (maxTokens < 0) throw Error("max_tokens: a positive count, or None for all");
        m_options.maxTokens = maxTokens;
        checkAtlasOptions(*model.model, m_options);
        py::gil_scoped_release release;
        m_corpus = atlasCorpus(corpus.empty() ? std::nullopt
                                              : std::optional<std::filesystem::path>(corpus));
        m_file = AtlasFile::openForRun(
            out, atlasProvenance(*model.model, location, m_corpus, m_options));
    }

    const std::vector<std::string>& documents() const { return m_corpus.documents; }
    std::int64_t documentsDone() const { return m_file->documentsDone(); }
    std::string optionsJson() const { return atlasOptionsJson(m_options); }

    // Where --max-tokens stops the run (the corpus's size without a limit).
    std::int64_t stop() const {
        py::gil_scoped_release release;
        return atlasStopDocument(*m_model.model, m_corpus.documents, m_file->documentsDone(),
                                 m_file->tokensDone(), m_options);
    }

    // Computes the documents up to `until` here, saving as the command line does.
    void runHere(std::int64_t until, py::object callback) {
        PythonProgress progress(std::move(callback));
        const Progress report = progress.progress();
        py::gil_scoped_release release;
        progress.guard([&] {
            const std::vector<std::string> documents(
                m_corpus.documents.begin(),
                m_corpus.documents.begin() +
                    std::clamp<std::int64_t>(until, 0, m_corpus.documents.size()));
            auto backend = createBackend(m_model.backend);
            AtlasRunOptions options = m_options;
            options.maxTokens = 0;  // `until` is where it stops
            runAtlas(
                *m_model.model, *backend, documents, *m_file, options,
                [&](const AtlasProgress& p) {
                    report(static_cast<int>(p.documents), static_cast<int>(p.totalDocuments));
                },
                progress.cancel());
            m_atlas.reset();  // the file has moved on
        });
    }

    // Joins the next block's part (atlas_part's bytes) and saves.
    void append(const std::string& bytes) {
        py::gil_scoped_release release;
        AtlasPart part = decodeAtlasPart(bytes);
        const std::int64_t next = m_file->documentsDone();
        if (part.documents.empty() || part.documents.front().index != next)
            throw Error("an atlas part of documents from " +
                        std::to_string(part.documents.empty() ? -1 : part.documents.front().index) +
                        " where the atlas continues at document " + std::to_string(next));
        if (!m_atlas) m_atlas = m_file->atlas();
        m_atlas->append(part.atlas);
        m_file->save(*m_atlas, part.documents);
    }

  private:
    NativeModel m_model;
    std::string m_out;
    AtlasRunOptions m_options;
    AtlasCorpus m_corpus;
    std::unique_ptr<AtlasFile> m_file;
    std::optional<HeadAtlas> m_atlas;  // the file's, while parts join
};

// A block's documents computed here for a run elsewhere (AtlasRun::optionsJson's options).
py::bytes atlasPartBytes(const NativeModel& model, const std::vector<std::string>& documents,
                         std::int64_t first, const std::string& options) {
    std::string bytes;
    {
        py::gil_scoped_release release;
        auto backend = createBackend(model.backend);
        bytes = encodeAtlasPart(
            atlasPart(*model.model, *backend, documents, first, atlasOptionsFromJson(options)));
    }
    return py::bytes(bytes);
}

std::string atlasFileJson(const std::string& path) {
    const auto file = AtlasFile::openToRead(path);
    return atlasJson(path, *file, file->atlas()).dump();
}

std::string atlasExamplesFileJson(const std::string& path, const std::string& score) {
    const auto file = AtlasFile::openToRead(path);
    return atlasExamplesJson(file->atlas(), score).dump();
}

}  // namespace

void bindAtlas(py::module_& m) {
    m.attr("ATLAS_BLOCK") = kAtlasBlock;
    py::class_<AtlasRun>(m, "AtlasRun")
        .def(py::init<const NativeModel&, const std::string&, const std::string&,
                      const std::string&, int, std::vector<std::string>, int, std::int64_t>())
        .def_property_readonly("documents", &AtlasRun::documents)
        .def_property_readonly("documents_done", &AtlasRun::documentsDone)
        .def_property_readonly("options_json", &AtlasRun::optionsJson)
        .def("stop", &AtlasRun::stop)
        .def("run_here", &AtlasRun::runHere)
        .def("append", &AtlasRun::append);
    m.def("atlas_part", &atlasPartBytes);
    m.def("atlas_json", &atlasFileJson);
    m.def("atlas_examples_json", &atlasExamplesFileJson);
}

}  // namespace qkv::python
