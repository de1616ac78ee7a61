#include "ui/export/figure_provenance.h"

#include <chrono>
#include <ctime>

#include "core/model/w_configuration.h"
#include "core/util/error.h"

namespace qkv::ui {
namespace {

template <typename T>
void putOptional(nlohmann::ordered_json& json, const char* key, const std::optional<T>& value) {
    if (value) json[key] = *value;
}

template <typename T>
void readOptional(const nlohmann::json& json, const char* key, std::optional<T>& target) {
    if (!json.contains(key)) return;
    try {
        target = json.at(key).get<T>();
    } catch (const nlohmann::json::exception&) {
        throw Error(std::string("figure provenance: \"") + key + "\" has the wrong type");
    }
}

template <typename T>
void readValue(const nlohmann::json& json, const char* key, T& target) {
    std::optional<T> value;
    readOptional(json, key, value);
    if (value) target = *value;
}

}  // namespace

void FigureProvenance::setConfig(const WConfiguration& c) {
    config = c.name();
    scaleOutside = c.scaleOutside;
    maskSelf = c.maskSelf;
    normalizeKeys = c.normalizeKeys;
}

void FigureProvenance::stamp() {
    appVersion = qkvlabVersion();
    if (exportedAt.empty()) exportedAt = utcTimestamp();
}

std::string FigureProvenance::title() const {
    std::string what = mode.value_or(view.empty() ? std::string("figure") : view);
    if (layer && head)
        what += " of layer " + std::to_string(*layer) + ", head " + std::to_string(*head);
    else if (layer)
        what += " of layer " + std::to_string(*layer);
    return "QKV Lab: " + what + (model.empty() ? "" : " — " + model);
}

std::string FigureProvenance::summary() const {
    std::vector<std::string> parts;
    if (!model.empty()) parts.push_back(model + (revision ? "@" + revision->substr(0, 12) : ""));
    std::string where;
    if (block) where = *block + " ";
    if (layer) where += "layer " + std::to_string(*layer);
    if (head) where += (layer ? ", head " : "head ") + std::to_string(*head);
    if (!where.empty()) parts.push_back(where);
    if (!view.empty()) parts.push_back(view + (mode ? " " + *mode : ""));
    if (config) parts.push_back(*config);
    if (text) parts.push_back("\"" + *text + "\"");
    std::string line;
    for (const auto& part : parts) line += (line.empty() ? "" : " · ") + part;
    return line;
}

nlohmann::ordered_json FigureProvenance::toJson() const {
    nlohmann::ordered_json json;
    if (!model.empty()) json["model"] = model;
    putOptional(json, "revision", revision);
    putOptional(json, "weights_header_sha256", weightsHeaderSha256);
    if (!weightsFiles.empty()) json["weights_files"] = weightsFiles;
    putOptional(json, "text", text);
    if (!ids.empty()) json["ids"] = ids;
    putOptional(json, "target_text", targetText);
    if (!targetIds.empty()) json["target_ids"] = targetIds;
    putOptional(json, "block", block);
    putOptional(json, "layer", layer);
    putOptional(json, "head", head);
    putOptional(json, "config", config);
    if (scaleOutside || maskSelf || normalizeKeys) {
        nlohmann::ordered_json options;
        putOptional(options, "scale_outside", scaleOutside);
        putOptional(options, "mask_self", maskSelf);
        putOptional(options, "normalize_keys", normalizeKeys);
        json["options"] = options;
    }
    if (!view.empty()) json["view"] = view;
    putOptional(json, "mode", mode);
    putOptional(json, "colormap", colorMap);
    putOptional(json, "diverging_colormap", divergingColorMap);
    if (!appVersion.empty()) json["app_version"] = appVersion;
    if (!exportedAt.empty()) json["exported_at"] = exportedAt;
    return json;
}

FigureProvenance FigureProvenance::fromJson(const nlohmann::json& json) {
    if (!json.is_object()) throw Error("figure provenance: not a JSON object");
    FigureProvenance p;
    readValue(json, "model", p.model);
    readOptional(json, "revision", p.revision);
    readOptional(json, "weights_header_sha256", p.weightsHeaderSha256);
    readValue(json, "weights_files", p.weightsFiles);
    readOptional(json, "text", p.text);
    readValue(json, "ids", p.ids);
    readOptional(json, "target_text", p.targetText);
    readValue(json, "target_ids", p.targetIds);
    readOptional(json, "block", p.block);
    readOptional(json, "layer", p.layer);
    readOptional(json, "head", p.head);
    readOptional(json, "config", p.config);
    if (json.contains("options")) {
        const auto& options = json.at("options");
        if (!options.is_object()) throw Error("figure provenance: \"options\" is not an object");
        readOptional(options, "scale_outside", p.scaleOutside);
        readOptional(options, "mask_self", p.maskSelf);
        readOptional(options, "normalize_keys", p.normalizeKeys);
    }
    readValue(json, "view", p.view);
    readOptional(json, "mode", p.mode);
    readOptional(json, "colormap", p.colorMap);
    readOptional(json, "diverging_colormap", p.divergingColorMap);
    readValue(json, "app_version", p.appVersion);
    readValue(json, "exported_at", p.exportedAt);
    return p;
}

std::string qkvlabVersion() { return QKV_VERSION; }

std::string utcTimestamp() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

}  // namespace qkv::ui
