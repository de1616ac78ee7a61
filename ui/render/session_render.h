#pragma once
// What `qkvlab-cli render --session FILE` draws: the session's head, sentence, configuration,
// heatmap mode and colours, in the render view closest to the session's tab. The Head and Compare
// tabs draw as they are; every other tab (Overview, Neurons, Q·K space, Lines, Training) draws
// the session's head as the Head tab does. Self-attention only.
#include <QString>

#include "core/model/model.h"
#include "ui/render/head_render.h"
#include "ui/session/session_file.h"

namespace qkv::ui {

// The request for `model`, the session's model opened. Throws qkv::Error for a session that
// shows a decoder or cross-attention, and for a sentence the model cannot tokenize.
HeadRenderRequest sessionRenderRequest(const Session& session, const Model& model);

// The session's name of a self-attention head, or empty.
QString sessionHeadName(const Session& session, int layer, int head);

// The session's model as a location the CLI opens: its folder when it exists, else its Hub id
// (with `revision` set); throws qkv::Error naming the missing folder when it has neither.
QString sessionModelLocation(const Session& session, QString& revision);

}  // namespace qkv::ui
