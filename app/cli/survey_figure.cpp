// The survey's figure file, drawn with Qt: built only with the GUI (QKV_BUILD_GUI).
#include "ui/plot/survey_figure.h"

#include <qcustomplot.h>

#include "app/cli/command.h"
#include "app/cli/qt_application.h"
#include "ui/export/figure_export.h"

namespace qkv::cli {

void writeSurveyFigure(const std::vector<ModelSurvey>& surveys, const std::string& path) {
    const auto app = startQt();
    QCustomPlot plot;
    const QSize size(std::max(640, 80 * static_cast<int>(surveys.size()) + 200), 900);
    plot.resize(size);
    ui::drawSurveyFigure(&plot, surveys);
    ui::exportPlot(&plot, QString::fromStdString(path), size);
}

}  // namespace qkv::cli
