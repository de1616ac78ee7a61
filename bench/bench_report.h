#pragma once
// The benchmark's output: tables of rows whose cells are printed as text, and whose figures, with
// the run's summary for scripts, make one JSON object for --json.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace qkv::bench {

using Json = nlohmann::ordered_json;

struct ReportRow {
    std::string measure;
    std::string value;              // qkvlab's figure
    std::string reference;          // the reference's figure, or ""
    std::string ratio;              // value / reference or a share of SGEMM, or ""
    std::string target;             // the target and its verdict, or notes; "-" when none
    Json figures = Json::object();  // the same figures as numbers, for --json
};

struct ReportTable {
    std::string title;                 // printed above the table (may span lines)
    std::vector<std::string> columns;  // the five headings
    std::vector<ReportRow> rows;
};

struct Report {
    std::vector<std::string> preamble;  // text lines before the tables
    Json summary = Json::object();      // the run's setting and headline figures, first in JSON
    std::vector<ReportTable> tables;
    std::vector<std::string> notMeasured;  // what could not run, and why
};

void printText(const Report& report);  // on stdout
Json toJson(const Report& report);

// Cell formats.
std::string ms(double seconds);
std::string megabytes(double bytes);
std::string verdict(bool met);                                          // "met" or "MISSED"
std::string ratio(double value, double reference, const char* format);  // "-" without reference

}  // namespace qkv::bench
