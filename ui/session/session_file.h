#pragma once
// A QKV Lab session file (*.qkvlab): what the window shows, as JSON a user can reopen and
// `qkvlab-cli render --session` can draw. Qt Core only (no widgets), so the CLI reads it too.
//
//   {"format": "qkvlab-session", "version": 1,
//    "model": {"folder": "...", "hub_id": "org/name", "revision": "<commit>"},
//    "text": "...", "target_text": "...",
//    "config": {"name": "shared-qk", "scale_outside": false, "mask_self": false,
//               "normalize_keys": false},
//    "gqa_pairing": "hf" | "modulo",
//    "view": {"tab": "head", "attention": "self" | "decoder" | "cross", "layer": 3, "head": 6,
//             "mode": "attention", "overview_metric": "wqk-symmetry",
//             "overview_thumbnails": false, "compare_shared_scale": true,
//             "space_pooled": false, "lines_all_heads": false},
//    "pinned_token": 2 | null,
//    "colors": {"sequential": "viridis", "diverging": "blue-white-red"},
//    "annotations": [{"attention": "self", "layer": 3, "head": 6, "name": "induction"}]}
#include <QByteArray>
#include <QString>
#include <optional>

#include "core/model/w_configuration.h"
#include "core/util/error.h"
#include "ui/document/head_annotations.h"
#include "ui/plot/heatmap_mode.h"

namespace qkv::ui {

inline constexpr int kSessionVersion = 1;
inline const QString kSessionFormat = QStringLiteral("qkvlab-session");
inline const QString kSessionSuffix = QStringLiteral("qkvlab");
// Whether a path names a session file (by its suffix).
inline bool isSessionFile(const QString& path) {
    return path.endsWith(u'.' + kSessionSuffix, Qt::CaseInsensitive);
}

// The model as the app opened it: its folder, and for a snapshot of the Hugging Face cache also
// its Hub id and revision (the snapshot's commit), so that another machine's cache can find it.
struct SessionModel {
    QString folder;
    QString hubId;
    QString revision;
    bool operator==(const SessionModel&) const = default;
};

struct Session {
    SessionModel model;
    QString text;
    QString targetText;  // encoder-decoder models; empty: the model writes one
    WConfiguration config;
    GqaPairing pairing = GqaPairing::HuggingFace;
    QString tab = QStringLiteral("head");  // one of sessionTabNames()
    AttentionKind kind = AttentionKind::Self;
    int layer = 0;
    int head = 0;
    HeatmapMode mode = HeatmapMode::Attention;
    QString overviewMetric = QStringLiteral("wqk-symmetry");
    bool overviewThumbnails = false;
    bool compareSharedScale = true;
    bool spacePooled = false;
    bool linesAllHeads = false;
    std::optional<int> pinnedToken;
    QString sequentialMap = QStringLiteral("viridis");  // names as in ui/plot/color_maps.h
    QString divergingMap = QStringLiteral("blue-white-red");
    HeadAnnotations annotations;
    bool operator==(const Session&) const = default;
};

// The window's tabs in order, as the file names them: head, compare, overview, training,
// neurons, space, lines.
const QStringList& sessionTabNames();

QByteArray sessionToJson(const Session& session);
// Throws qkv::Error saying what is wrong: not JSON, another format, a newer version, a field
// of the wrong type or value.
Session sessionFromJson(const QByteArray& json);

// The same for a file; errors name it. Writing goes through a temporary renamed into place.
Session readSessionFile(const QString& path);
void writeSessionFile(const Session& session, const QString& path);

}  // namespace qkv::ui
