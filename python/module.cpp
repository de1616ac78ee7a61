// The `qkvlab` Python module's native part (`qkvlab._native`): the core's model, forward and
// analysis behind a small surface that python/qkvlab/__init__.py wraps. Long calls release the
// GIL; between layers they check for Ctrl-C and call the progress callback.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/head_metrics.h"
#include "core/analysis/model_survey.h"
#include "core/hub/model_location.h"
#include "core/model/forward.h"
#include "core/model/model.h"
#include "core/model/model_input.h"
#include "core/report/json_report.h"
#include "core/util/error.h"
#include "gpu/backend_factory.h"
#include "python/atlas_bindings.h"
#include "python/attention_arrays.h"
#include "python/python_support.h"
#ifdef QKV_HAS_FIGURES
#include "python/head_figure.h"
#endif

namespace py = pybind11;

namespace qkv::python {
namespace {

struct AttentionResult {
    std::vector<int> ids, targetIds;
    std::vector<std::string> tokens, targetTokens;
    std::string config;
    TraceArrays self, decoder, cross;
    // What figure() needs to draw a head of the same forward again.
    std::shared_ptr<const Model> model;
    std::string backend;
    WConfiguration configuration;
};

// Draws one head of `result` into `path` (.png, .svg, .pdf) as `qkvlab-cli render` does.
void figure(const AttentionResult& result, int layer, int head, const std::string& path,
            const std::string& view, int width, int height) {
#ifdef QKV_HAS_FIGURES
    HeadFigure figure{result.ids, result.configuration, layer, head, view, width, height};
    py::gil_scoped_release release;
    writeHeadFigure(*result.model, result.backend, figure, path);
#else
    (void)result, (void)layer, (void)head, (void)path, (void)view, (void)width, (void)height;
    throw Error("this qkvlab was built without the app (Qt), which draws the figures");
#endif
}

// The first chosen head as a PNG, for Jupyter's inline display.
py::bytes inlinePng(const AttentionResult& result) {
    namespace fs = std::filesystem;
    static std::atomic<int> count{0};
    const fs::path dir = fs::temp_directory_path() / ("qkvlab-figure-" + std::to_string(getpid()) +
                                                      "-" + std::to_string(++count));
    fs::create_directories(dir);
    const fs::path file = dir / "head.png";
    try {
        figure(result, result.self.layers.front(), result.self.heads.front(), file.string(),
               "attention", 560, 460);
    } catch (...) {
        fs::remove_all(dir);
        throw;
    }
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    fs::remove_all(dir);
    return py::bytes(bytes);
}

// A numpy view of `block`, owned by `owner` (its base): no copy.
py::object view(const DenseBlock& block, py::handle owner) {
    if (block.shape.empty()) return py::none();
    std::vector<py::ssize_t> shape(block.shape.begin(), block.shape.end());
    return py::array_t<float>(shape, block.values.data(), owner);
}

std::vector<std::string> piecesOf(const Model& model, const std::vector<int>& ids) {
    std::vector<std::string> pieces;
    for (int id : ids) pieces.push_back(model.pieceOrNumber(id));
    return pieces;
}

NativeModel openModel(const std::string& location, const std::string& revision,
                      const std::string& backend) {
    py::gil_scoped_release release;
    createBackend(backend);  // says now, not at the first forward, when it cannot run
    return {Model::open(locateModel(location, revision)), backend};
}

AttentionResult attention(NativeModel& native, std::vector<int> ids, std::vector<int> targetIds,
                          const std::string& config, bool scaleOutside, bool maskSelf,
                          std::vector<int> layers, std::vector<int> heads, bool scores,
                          bool vectors, py::object callback) {
    const Model& model = *native.model;
    const Architecture& c = model.architecture();
    ForwardRequest request;
    request.ids = std::move(ids);
    request.targetIds = std::move(targetIds);
    if (c.isEncoderDecoder() && request.targetIds.empty())
        request.targetIds = {c.decoderStartToken};
    request.config = WConfiguration::parse(config);
    request.config.scaleOutside = scaleOutside;
    request.config.maskSelf = maskSelf;
    if (layers.size() == 1) request.capture.layer = layers.front();
    if (heads.size() == 1) request.capture.head = heads.front();
    request.capture.scores = scores;
    request.logits = LogitsMode::None;
    PythonProgress progress(std::move(callback));
    request.progress = progress.progress();
    request.cancel = progress.cancel();
    // Indices the model does not have are errors before the forward, not after it.
    allOrChecked(layers, c.layers, "layer");
    allOrChecked(heads, c.heads, "head");
    if (c.isEncoderDecoder()) {
        allOrChecked(layers, c.decoderLayers, "decoder layer");
        allOrChecked(heads, c.decoderHeads, "decoder head");
    }
    AttentionResult out;
    {
        py::gil_scoped_release release;
        progress.guard([&] {
            if (request.ids.empty()) throw Error("no tokens: give a sentence or ids");
            inputFromIds(model, request.ids, OverContext::Refuse);  // within the context
            validateIds(c, request.ids);
            auto backend = createBackend(native.backend);
            ForwardResult result = ForwardPass(model, *backend).run(request);
            out.self = denseArrays(result.trace, layers, heads, vectors);
            if (c.isEncoderDecoder()) {
                out.decoder = denseArrays(result.decoderTrace, layers, heads, vectors);
                out.cross = denseArrays(result.crossTrace, layers, heads, vectors);
            }
        });
    }
    out.ids = request.ids;
    out.tokens = piecesOf(model, out.ids);
    out.targetIds = request.targetIds;
    out.targetTokens = piecesOf(model, out.targetIds);
    out.config = request.config.name();
    out.model = native.model;
    out.backend = native.backend;
    out.configuration = request.config;
    return out;
}

std::string analyze(NativeModel& native, const std::string& config, std::vector<int> ids,
                    bool copyingScores, const std::string& pairing, py::object callback,
                    py::object roundTripCallback) {
    const Model& model = *native.model;
    AnalysisOptions options;
    options.copyingScores = copyingScores;
    if (pairing != "hf" && pairing != "modulo")
        throw Error("gqa_pairing: " + pairing + " (choose hf or modulo)");
    options.pairing = pairing == "hf" ? GqaPairing::HuggingFace : GqaPairing::Modulo;
    const WConfiguration configuration = WConfiguration::parse(config);
    PythonProgress progress(std::move(callback));
    options.roundTripProgress = progress.progressTo(std::move(roundTripCallback));
    py::gil_scoped_release release;
    return progress.guard([&] {
        std::optional<ForwardResult> forward;
        if (!ids.empty()) {  // a sentence adds each head's score symmetry and sink share
            validateIds(model.architecture(), ids);
            auto backend = createBackend(native.backend);
            ForwardRequest request;
            request.ids = ids;
            request.config = configuration;
            request.logits = LogitsMode::None;
            request.cancel = progress.cancel();
            forward = ForwardPass(model, *backend).run(request);
        }
        const ModelMetrics metrics =
            analyzeModel(model, configuration, forward ? &forward->trace : nullptr,
                         progress.cancel(), progress.progress(), options);
        return metricsJson(metrics).dump();
    });
}

// Each model's row of `qkvlab-cli survey --json`, one model open at a time.
std::string survey(const std::vector<std::string>& locations, bool copyingScores,
                   py::object callback) {
    AnalysisOptions options;
    options.copyingScores = copyingScores;
    PythonProgress progress(std::move(callback));
    nlohmann::ordered_json models = nlohmann::ordered_json::array();
    py::gil_scoped_release release;
    for (const std::string& location : locations) {
        try {
            progress.guard([&] {
                const auto model = Model::open(locateModel(location, "main"));
                models.push_back(surveyJson(surveyModel(*model, location, options,
                                                        progress.progress(), progress.cancel())));
                // Ctrl-C in the last layer's report: nothing in the analysis checks again.
                if (progress.cancel()->load()) throw Cancelled();
            });
        } catch (const Cancelled&) {
            throw;
        } catch (const Error& e) {
            throw Error(location + ": " + e.what());
        }
    }
    return models.dump();
}

void bindResult(py::module_& m) {
    py::class_<AttentionResult>(m, "AttentionResult")
        .def_readonly("ids", &AttentionResult::ids)
        .def_readonly("tokens", &AttentionResult::tokens)
        .def_readonly("target_ids", &AttentionResult::targetIds)
        .def_readonly("target_tokens", &AttentionResult::targetTokens)
        .def_readonly("config", &AttentionResult::config)
        .def_property_readonly("model_name",
                               [](const AttentionResult& r) { return r.model->name(); })
        .def("_block",
             [](py::object self, const std::string& stack, const std::string& what) {
                 const AttentionResult& r = self.cast<const AttentionResult&>();
                 const TraceArrays& t = stack == "decoder" ? r.decoder
                                        : stack == "cross" ? r.cross
                                                           : r.self;
                 const DenseBlock& b = what == "scores" ? t.scores
                                       : what == "q"    ? t.q
                                       : what == "k"    ? t.k
                                       : what == "v"    ? t.v
                                                        : t.attention;
                 return view(b, self);
             })
        .def("figure", &figure, py::arg("layer"), py::arg("head"), py::arg("path"),
             py::arg("view") = "attention", py::arg("width") = 1000, py::arg("height") = 820,
             "Writes one head's heatmap to path (.png, .svg or .pdf) with its provenance, as "
             "qkvlab-cli render draws it")
        .def("_repr_png_", &inlinePng)
        .def("_selection", [](const AttentionResult& r, const std::string& stack) {
            const TraceArrays& t = stack == "decoder" ? r.decoder
                                   : stack == "cross" ? r.cross
                                                      : r.self;
            return py::make_tuple(t.layers, t.heads, t.sinkShares);
        });
}

}  // namespace

PYBIND11_MODULE(_native, m) {
    m.doc() = "QKV Lab's core (see the qkvlab package)";
    py::register_exception<Error>(m, "Error");
    py::class_<NativeModel>(m, "Model")
        .def("info_json", [](const NativeModel& n) { return modelInfoJson(*n.model).dump(); })
        .def("tokenize",
             [](const NativeModel& n, const std::string& text) {
                 std::vector<int> ids;
                 std::vector<std::string> pieces;
                 for (const Token& token : n.model->tokenize(text)) {
                     ids.push_back(token.id);
                     pieces.push_back(token.piece);
                 }
                 return py::make_tuple(ids, pieces);
             })
        .def("target_ids",
             [](const NativeModel& n, const std::string& text) { return n.model->targetIds(text); })
        .def("attention", &attention)
        .def("analyze", &analyze);
    bindResult(m);
    bindAtlas(m);
    m.def("survey", &survey);
    m.def("open", &openModel, py::arg("location"), py::arg("revision") = "main",
          py::arg("backend") = "cpu");
}

}  // namespace qkv::python
