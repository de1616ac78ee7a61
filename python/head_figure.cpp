#include "python/head_figure.h"

#include <QApplication>
#include <memory>

#include "core/util/error.h"
#include "gpu/backend_factory.h"
#include "ui/compute/token_list.h"
#include "ui/plot/heatmap_mode.h"
#include "ui/render/head_render.h"

namespace qkv::python {
namespace {

// The QApplication the figure builder needs, made once; it draws offscreen unless the user's
// environment chose a platform (a notebook has no window to show).
void ensureQt() {
    if (QApplication::instance()) return;
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "qkvlab";
    static char* argv[] = {name, nullptr};
    static std::unique_ptr<QApplication> app = std::make_unique<QApplication>(argc, argv);
}

}  // namespace

void writeHeadFigure(const Model& model, const std::string& backend, const HeadFigure& figure,
                     const std::string& path) {
    ensureQt();
    ui::HeadRenderRequest request;
    for (int id : figure.ids)
        request.tokens.push_back(ui::shownToken(model, id, model.pieceOrNumber(id), false));
    request.config = figure.config;
    request.layer = figure.layer;
    request.head = figure.head;
    const auto mode = ui::parseHeatmapMode(QString::fromStdString(figure.view));
    if (!mode) throw Error("view: " + figure.view + " (choose attention, scores or asymmetry)");
    request.mode = *mode;
    request.size = QSize(figure.width, figure.height);
    auto compute = createBackend(backend);
    ui::renderHeadToFile(model, *compute, request, QString::fromStdString(path));
}

}  // namespace qkv::python
