#include "ui/export/figure_data.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <charconv>
#include <cmath>

#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace qkv::ui {
namespace {

// Attention and scores are floats widened to double: printed as the float they were (0.1, not
// 0.10000000149011612); anything else with a double's shortest digits.
std::string numberText(double value) {
    char text[32];
    const auto asFloat = static_cast<float>(value);
    const auto result = static_cast<double>(asFloat) == value
                            ? std::to_chars(text, text + sizeof text, asFloat)
                            : std::to_chars(text, text + sizeof text, value);
    return std::string(text, result.ptr);
}

std::string csvField(const QString& text) {
    if (!text.contains(QRegularExpression(QStringLiteral("[\",\r\n]")))) return text.toStdString();
    QString quoted = text;
    return ("\"" + quoted.replace(QStringLiteral("\""), QStringLiteral("\"\"")) + "\"")
        .toStdString();
}

nlohmann::ordered_json labelsJson(const QStringList& labels) {
    nlohmann::ordered_json json = nlohmann::ordered_json::array();
    for (const QString& label : labels) json.push_back(label.toStdString());
    return json;
}

nlohmann::ordered_json panelJson(const HeatmapData& data) {
    nlohmann::ordered_json values = nlohmann::ordered_json::array();
    for (int r = 0; r < data.rows; ++r) {
        nlohmann::ordered_json row = nlohmann::ordered_json::array();
        for (int c = 0; c < data.cols; ++c) {
            const double v = data.at(r, c);
            if (std::isfinite(v))
                row.push_back(std::stod(numberText(v)));
            else
                row.push_back(nullptr);
        }
        values.push_back(row);
    }
    return {{"rows", labelsJson(data.rowLabels)},
            {"columns", labelsJson(data.colLabels)},
            {"values", values}};
}

std::string panelCsv(const HeatmapData& data) {
    std::string csv;
    for (int c = 0; c < data.cols; ++c) csv += ',' + csvField(data.colLabels.value(c));
    csv += '\n';
    for (int r = 0; r < data.rows; ++r) {
        csv += csvField(data.rowLabels.value(r));
        for (int c = 0; c < data.cols; ++c) {
            const double v = data.at(r, c);
            csv += ',' + (std::isfinite(v) ? numberText(v) : std::string());
        }
        csv += '\n';
    }
    return csv;
}

}  // namespace

QStringList writeFigureData(const FigureSpec& spec, const FigureProvenance& provenance,
                            const QString& figurePath) {
    if (spec.panels.empty()) throw Error("the figure draws no matrix to save");
    const QFileInfo figure(figurePath);
    const QString base = figure.dir().filePath(figure.completeBaseName());
    nlohmann::ordered_json doc = {{"provenance", provenance.toJson()}};
    QStringList written;
    if (spec.panels.size() == 1) {
        doc.update(panelJson(spec.panels.front().data));
        writeFileAtomically((base + ".csv").toStdString(), panelCsv(spec.panels.front().data));
        written << base + ".csv";
    } else {
        nlohmann::ordered_json panels = nlohmann::ordered_json::array();
        for (size_t i = 0; i < spec.panels.size(); ++i) {
            const QString csv = base + QStringLiteral("-%1.csv").arg(i + 1);
            nlohmann::ordered_json panel = {{"title", spec.panels[i].title.toStdString()},
                                            {"csv", QFileInfo(csv).fileName().toStdString()}};
            panel.update(panelJson(spec.panels[i].data));
            panels.push_back(panel);
            writeFileAtomically(csv.toStdString(), panelCsv(spec.panels[i].data));
            written << csv;
        }
        doc["panels"] = panels;
    }
    writeFileAtomically((base + ".json").toStdString(),
                        doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    written.prepend(base + ".json");
    return written;
}

}  // namespace qkv::ui
