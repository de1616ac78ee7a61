#include "app/cli/figure_info.h"

#include "core/util/error.h"

#ifdef QKV_HAS_RENDER
#include <algorithm>
#include <cstdio>

#include "app/cli/cli_common.h"
#include "app/cli/qt_application.h"
#include "ui/export/figure_provenance_reader.h"
#endif

namespace qkv::cli {

#ifdef QKV_HAS_RENDER
namespace {

std::string joined(const std::vector<int>& ids) {
    std::string text;
    for (const int id : ids) text += (text.empty() ? "" : ",") + std::to_string(id);
    return text;
}

std::string yesNo(const std::optional<bool>& value) {
    return value ? (*value ? "yes" : "no") : "?";
}

}  // namespace

int printFigureInfo(const std::string& path, bool json) {
    const auto app = startQt();
    const auto provenance = ui::readFigureProvenance(QString::fromStdString(path));
    if (!provenance) throw Error(path + ": carries no QKV Lab provenance in its metadata");
    const ui::FigureProvenance& p = *provenance;
    if (json) {
        printJson(p.toJson());
        return 0;
    }
    auto row = [](const char* label, const std::string& value) {
        if (!value.empty()) std::printf("%-14s %s\n", label, value.c_str());
    };
    row("title", p.title());
    row("model", p.model);
    row("revision", p.revision.value_or(""));
    if (p.weightsHeaderSha256) {
        std::string files;
        for (const auto& f : p.weightsFiles) files += (files.empty() ? "" : ", ") + f;
        // A GGUF file (an Ollama blob is named by its digest) has its own header.
        const bool gguf =
            !p.weightsFiles.empty() &&
            std::all_of(p.weightsFiles.begin(), p.weightsFiles.end(), [](const std::string& f) {
                return f.rfind("sha256-", 0) == 0 ||
                       (f.size() > 5 && f.substr(f.size() - 5) == ".gguf");
            });
        const std::string header =
            gguf ? "GGUF header: its metadata and tensor infos" : "safetensors header";
        row("weights", *p.weightsHeaderSha256 + " (SHA-256 of the " + header +
                           (p.weightsFiles.size() > 1 ? "s' digests" : "") +
                           (files.empty() ? "" : ": " + files) + ")");
    }
    row("text", p.text ? "\"" + *p.text + "\"" : "");
    row("ids", joined(p.ids));
    row("target text", p.targetText ? "\"" + *p.targetText + "\"" : "");
    row("target ids", joined(p.targetIds));
    row("block", p.block.value_or(""));
    row("layer", p.layer ? std::to_string(*p.layer) : "");
    row("head", p.head ? std::to_string(*p.head) : "");
    if (p.config)
        row("config", *p.config + " (scale outside: " + yesNo(p.scaleOutside) + ", mask self: " +
                          yesNo(p.maskSelf) + ", normalize keys: " + yesNo(p.normalizeKeys) + ")");
    row("view", p.view + (p.mode ? " (" + *p.mode + ")" : ""));
    row("colour map", p.colorMap.value_or(""));
    row("diverging map", p.divergingColorMap.value_or(""));
    row("app version", p.appVersion);
    row("exported at", p.exportedAt);
    return 0;
}
#else
int printFigureInfo(const std::string&, bool) {
    throw Error("info --figure reads images with Qt: this qkvlab-cli was built without the GUI");
}
#endif

}  // namespace qkv::cli
