#include "ui/render/session_render.h"

#include <QFileInfo>

#include "core/util/error.h"
#include "ui/compute/token_list.h"

namespace qkv::ui {

HeadRenderRequest sessionRenderRequest(const Session& session, const Model& model) {
    if (session.kind != AttentionKind::Self)
        throw Error("the session shows the " +
                    std::string(session.kind == AttentionKind::Cross ? "cross-attention"
                                                                     : "decoder's self-attention") +
                    "; render draws self-attention only");
    if (session.text.trimmed().isEmpty()) throw Error("the session has no sentence to draw");
    HeadRenderRequest request;
    const TokenizedText text = tokenizeForModel(model, session.text);
    request.tokens = text.tokens;
    request.text = session.text;
    request.config = session.config;
    request.layer = session.layer;
    request.head = session.head;
    request.mode = session.mode;
    request.compare = session.tab == QLatin1String("compare");
    request.colors = {session.sequentialMap, session.divergingMap};
    request.headName = sessionHeadName(session, session.layer, session.head);
    return request;
}

QString sessionHeadName(const Session& session, int layer, int head) {
    const auto name = session.annotations.find({AttentionKind::Self, layer, head});
    return name == session.annotations.end() ? QString() : name->second;
}

QString sessionModelLocation(const Session& session, QString& revision) {
    if (!session.model.folder.isEmpty() && QFileInfo(session.model.folder).isDir())
        return session.model.folder;
    if (!session.model.hubId.isEmpty()) {
        revision =
            session.model.revision.isEmpty() ? QStringLiteral("main") : session.model.revision;
        return session.model.hubId;
    }
    throw Error("the session's model folder does not exist: " + session.model.folder.toStdString());
}

}  // namespace qkv::ui
