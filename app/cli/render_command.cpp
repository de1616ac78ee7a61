// qkvlab-cli render: one head's heatmap to PNG, SVG or PDF without a display, drawn by the app's
// own figure builder. Built only with the GUI (QKV_BUILD_GUI), since it needs Qt.
#include <iostream>
#include <memory>

#include "app/cli/cli_common.h"
#include "app/cli/command.h"
#include "app/cli/qt_application.h"
#include "core/util/error.h"
#include "ui/compute/token_list.h"
#include "ui/export/figure_export.h"
#include "ui/plot/color_maps.h"
#include "ui/render/head_render.h"
#include "ui/render/session_render.h"

namespace qkv::cli {
namespace {

// --session: the session's model, sentence, configuration, head, view and colours.
ui::Session readSession(const Arguments& args) {
    for (const char* option :
         {"model", "revision", "text", "ids", "config", "scale-outside", "mask-self"})
        if (args.has(option))
            throw UsageError(std::string("--session names the model, the text and the "
                                         "configuration: leave out --") +
                             option);
    return ui::readSessionFile(QString::fromStdString(args.required("session")));
}

ui::HeadRenderRequest sessionRequest(const ui::Session& session, std::unique_ptr<Model>& model) {
    QString revision = QStringLiteral("main");
    const QString location = ui::sessionModelLocation(session, revision);
    model = Model::open(modelFolder(location.toStdString(), revision.toStdString()));
    return ui::sessionRenderRequest(session, *model);
}

ui::HeadRenderRequest argumentsRequest(const Arguments& args, std::unique_ptr<Model>& model) {
    model = openModel(args);
    const Input input = readInput(*model, args);
    ui::HeadRenderRequest request;
    for (size_t i = 0; i < input.ids.size(); ++i)
        request.tokens.push_back(ui::shownToken(*model, input.ids[i], input.pieces[i], false));
    request.config = readConfig(args);
    if (auto text = args.value("text")) request.text = QString::fromStdString(*text);
    return request;
}

int runRender(const Arguments& args) {
    const auto app = startQt();
    std::unique_ptr<Model> model;
    std::optional<ui::Session> session;
    if (args.has("session")) session = readSession(args);
    ui::HeadRenderRequest request =
        session ? sessionRequest(*session, model) : argumentsRequest(args, model);
    // Given options override what a session shows.
    request.layer = args.integer("layer", 0, 1 << 20).value_or(request.layer);
    request.head = args.integer("head", 0, 1 << 20).value_or(request.head);
    if (const auto view = args.value("view")) {
        const auto mode = ui::parseHeatmapMode(QString::fromStdString(*view));
        if (!mode) throw UsageError("--view must be attention, scores or asymmetry");
        request.mode = *mode;
    }
    if (args.flag("compare")) request.compare = true;
    if (session) request.headName = ui::sessionHeadName(*session, request.layer, request.head);
    request.writeData = args.flag("data");
    request.size = QSize(args.integer("width", 200, 10000).value_or(request.size.width()),
                         args.integer("height", 200, 10000).value_or(request.size.height()));
    auto colorMap = [&](const char* option, const QStringList& names, QString& target) {
        if (auto name = args.value(option)) {
            target = QString::fromStdString(*name);
            if (!names.contains(target))
                throw UsageError(std::string("--") + option + " must be one of " +
                                 names.join(", ").toStdString());
        }
    };
    colorMap("colormap", ui::sequentialMapNames(), request.colors.sequential);
    colorMap("diverging", ui::divergingMapNames(), request.colors.diverging);

    auto backend = openBackend(args);
    const QString out = QString::fromStdString(args.required("out"));
    const ui::HeadRenderResult result = ui::renderHeadToFile(*model, *backend, request, out);
    std::cout << "wrote " << out.toStdString()
              << (result.pngScale ? ui::reducedScaleNote(*result.pngScale).toStdString()
                                  : std::string())
              << "\n";
    for (const QString& file : result.dataFiles)
        std::cout << "wrote " << file.toStdString() << "\n";
    return 0;
}

}  // namespace

Command renderCommand() {
    std::vector<OptionSpec> options = forwardOptions();
    options.push_back({"session", "FILE",
                       "draw what a saved session (.qkvlab) shows: its model, text, "
                       "configuration, head, mode, colours and head name, instead of --model, "
                       "--text/--ids and --config. Its Compare tab draws as --compare; every "
                       "other tab draws the head as the Head tab. Self-attention only; the "
                       "options below override the session's"});
    options.push_back({"layer", "L", "layer (0-based, default 0)"});
    options.push_back({"head", "H", "head (0-based, default 0)"});
    options.push_back(
        {"view", "attention|scores|asymmetry", "what the heatmap shows (default attention)"});
    options.push_back({"compare", "", "learned | configuration | difference, as the Compare tab"});
    options.push_back({"out", "FILE",
                       "output image: .png, .svg or .pdf, its provenance in the file's metadata "
                       "(qkvlab-cli info --figure FILE reads it)"});
    options.push_back({"data", "",
                       "also write the drawn matrix beside the image: FILE.json (with the "
                       "provenance) and FILE.csv"});
    options.push_back({"width", "PX",
                       "figure width in logical pixels (default 1000; PNG at 2x, less above " +
                           std::to_string(ui::kMaxRasterPixels / 1'000'000) + " megapixels)"});
    options.push_back({"height", "PX", "figure height in logical pixels (default 820)"});
    options.push_back({"colormap", "NAME", "viridis (default), cividis, magma or greys"});
    options.push_back({"diverging", "NAME", "blue-white-red (default) or purple-white-green"});
    options.push_back(backendOption());
    return {"render", "draw one head's heatmap to PNG, SVG or PDF (no display needed)", options,
            runRender};
}

}  // namespace qkv::cli
