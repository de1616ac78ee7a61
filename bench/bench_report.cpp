#include "bench/bench_report.h"

#include <algorithm>
#include <cstdio>

namespace qkv::bench {

void printText(const Report& report) {
    for (const auto& line : report.preamble) std::printf("%s\n", line.c_str());
    for (const auto& table : report.tables) {
        std::printf("\n%s", table.title.c_str());
        if (!table.title.empty()) std::printf("\n");
        // The measure column fits its longest label.
        size_t width = table.columns[0].size();
        for (const auto& row : table.rows) width = std::max(width, row.measure.size());
        const int w = static_cast<int>(width);
        const auto& c = table.columns;
        std::printf("%-*s %14s %12s %8s   %s\n", w, c[0].c_str(), c[1].c_str(), c[2].c_str(),
                    c[3].c_str(), c[4].c_str());
        for (const auto& r : table.rows)
            std::printf("%-*s %14s %12s %8s   %s\n", w, r.measure.c_str(), r.value.c_str(),
                        r.reference.c_str(), r.ratio.c_str(), r.target.c_str());
    }
    if (!report.notMeasured.empty()) std::printf("\n");
    for (const auto& reason : report.notMeasured) std::printf("not measured: %s\n", reason.c_str());
}

Json toJson(const Report& report) {
    Json json = report.summary;
    json["tables"] = Json::array();
    for (const auto& table : report.tables) {
        Json rows = Json::array();
        for (const auto& r : table.rows) {
            Json row = {{"measure", r.measure},
                        {"text", {r.value, r.reference, r.ratio, r.target}}};
            row.update(r.figures);
            rows.push_back(std::move(row));
        }
        json["tables"].push_back(
            {{"title", table.title}, {"columns", table.columns}, {"rows", std::move(rows)}});
    }
    json["not_measured"] = report.notMeasured;
    return json;
}

std::string ms(double s) {
    char text[32];
    std::snprintf(text, sizeof text, s < 0.01 ? "%.2f ms" : "%.1f ms", s * 1e3);
    return text;
}

std::string megabytes(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f MB", bytes / 1e6);
    return text;
}

std::string verdict(bool met) { return met ? "met" : "MISSED"; }

std::string ratio(double value, double reference, const char* format) {
    if (reference <= 0) return "-";
    char text[32];
    std::snprintf(text, sizeof text, format, value / reference);
    return text;
}

}  // namespace qkv::bench
