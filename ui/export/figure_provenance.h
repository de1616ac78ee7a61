#pragma once
// What an exported figure shows, so a reader of the file can redo it: the model and its weights,
// the input, the head, the W configuration, the view and the colour maps, the app version and
// when it was written. The exporters put it into each format's own metadata (PNG text chunks,
// an SVG <metadata> element, the PDF's document information and XMP); `qkvlab-cli info --figure`
// reads it back. A field the exporter does not know for a view is left out, never guessed.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/model/w_configuration.h"

namespace qkv::ui {

struct FigureProvenance {
    std::string model;                    // a Hub id, else the model folder's name
    std::optional<std::string> revision;  // the Hub commit of a cached snapshot
    // SHA-256 of the weights' safetensors header (the 8-byte length and the JSON header). Several
    // files: the SHA-256 of their header digests (lowercase hex, concatenated in weightsFiles'
    // order).
    std::optional<std::string> weightsHeaderSha256;
    std::vector<std::string> weightsFiles;  // the file names hashed, in order
    std::optional<std::string> text;
    std::vector<int> ids;                   // the tokens drawn (the queries); empty when not known
    std::optional<std::string> targetText;  // encoder-decoder models: the decoder's input
    std::vector<int> targetIds;
    std::optional<int> layer;
    std::optional<int> head;
    std::optional<std::string> block;   // encoder-decoder models: encoder, decoder or cross
    std::optional<std::string> config;  // the W configuration's name
    std::optional<bool> scaleOutside;
    std::optional<bool> maskSelf;
    std::optional<bool> normalizeKeys;
    std::string view;                     // head, compare, overview, neurons, space, survey, ...
    std::optional<std::string> mode;      // attention, scores or asymmetry
    std::optional<std::string> colorMap;  // the sequential map, when drawn
    std::optional<std::string> divergingColorMap;  // the diverging map, when drawn
    std::string appVersion;
    std::string exportedAt;  // ISO 8601, UTC

    void setConfig(const WConfiguration& config);
    // The app's version, and now as exportedAt unless a time is set already (so a figure and
    // its data files, written one after the other, carry the same record).
    void stamp();
    // "QKV Lab: attention of layer 1, head 2 — gpt2"
    std::string title() const;
    // One line: "gpt2 · layer 1, head 2 · attention · learned · "The cat sat"".
    std::string summary() const;

    nlohmann::ordered_json toJson() const;
    // Throws qkv::Error naming the field when one has the wrong type.
    static FigureProvenance fromJson(const nlohmann::json& json);
    bool operator==(const FigureProvenance&) const = default;
};

// The project's version ("0.1.0").
std::string qkvlabVersion();
// Now, as "2025-01-31T12:34:56Z".
std::string utcTimestamp();

}  // namespace qkv::ui
