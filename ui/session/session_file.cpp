#include "ui/session/session_file.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "core/util/atomic_file.h"

namespace qkv::ui {
namespace {

const QStringList kAttentionNames = {QStringLiteral("self"), QStringLiteral("decoder"),
                                     QStringLiteral("cross")};

QString attentionName(AttentionKind kind) { return kAttentionNames.at(static_cast<int>(kind)); }

[[noreturn]] void fail(const QString& message) { throw Error(message.toStdString()); }

// Typed reads of optional fields: absent keeps the default, a wrong type is an error naming
// the field.
class Reader {
  public:
    Reader(const QJsonObject& object, QString where)
        : m_object(object), m_where(std::move(where)) {}

    QJsonValue at(const QString& key) const { return m_object.value(key); }
    QString name(const QString& key) const {
        return m_where.isEmpty() ? key : m_where + u'.' + key;
    }
    void read(const QString& key, QString& target) const {
        const QJsonValue v = at(key);
        if (v.isUndefined()) return;
        if (!v.isString()) fail(QStringLiteral("\"%1\" must be a string").arg(name(key)));
        target = v.toString();
    }
    void read(const QString& key, bool& target) const {
        const QJsonValue v = at(key);
        if (v.isUndefined()) return;
        if (!v.isBool()) fail(QStringLiteral("\"%1\" must be true or false").arg(name(key)));
        target = v.toBool();
    }
    void read(const QString& key, int& target) const {
        const QJsonValue v = at(key);
        if (v.isUndefined()) return;
        const double d = v.toDouble(-1);
        if (!v.isDouble() || d < 0 || d != static_cast<int>(d))
            fail(QStringLiteral("\"%1\" must be a whole number ≥ 0").arg(name(key)));
        target = static_cast<int>(d);
    }
    QJsonObject object(const QString& key) const {
        const QJsonValue v = at(key);
        if (v.isUndefined()) return {};
        if (!v.isObject()) fail(QStringLiteral("\"%1\" must be an object").arg(name(key)));
        return v.toObject();
    }
    AttentionKind attention(const QString& key) const {
        QString text = attentionName(AttentionKind::Self);
        read(key, text);
        const qsizetype index = kAttentionNames.indexOf(text);
        if (index < 0)
            fail(QStringLiteral("\"%1\" must be one of %2")
                     .arg(name(key), kAttentionNames.join(QStringLiteral(", "))));
        return static_cast<AttentionKind>(index);
    }

  private:
    QJsonObject m_object;
    QString m_where;
};

WConfiguration readConfig(const Reader& r) {
    QString name = QStringLiteral("learned");
    r.read(QStringLiteral("name"), name);
    WConfiguration config;
    try {
        config = WConfiguration::parse(name.toStdString());
    } catch (const Error& e) {
        fail(QStringLiteral("\"config.name\": %1").arg(QString::fromUtf8(e.what())));
    }
    r.read(QStringLiteral("scale_outside"), config.scaleOutside);
    r.read(QStringLiteral("mask_self"), config.maskSelf);
    r.read(QStringLiteral("normalize_keys"), config.normalizeKeys);
    return config;
}

void readView(const Reader& r, Session& s) {
    r.read(QStringLiteral("tab"), s.tab);
    if (!sessionTabNames().contains(s.tab))
        fail(QStringLiteral("\"view.tab\" must be one of %1")
                 .arg(sessionTabNames().join(QStringLiteral(", "))));
    s.kind = r.attention(QStringLiteral("attention"));
    r.read(QStringLiteral("layer"), s.layer);
    r.read(QStringLiteral("head"), s.head);
    QString mode = heatmapModeName(s.mode);
    r.read(QStringLiteral("mode"), mode);
    const auto parsed = parseHeatmapMode(mode);
    if (!parsed) fail(QStringLiteral("\"view.mode\" must be attention, scores or asymmetry"));
    s.mode = *parsed;
    r.read(QStringLiteral("overview_metric"), s.overviewMetric);
    r.read(QStringLiteral("overview_thumbnails"), s.overviewThumbnails);
    r.read(QStringLiteral("compare_shared_scale"), s.compareSharedScale);
    r.read(QStringLiteral("space_pooled"), s.spacePooled);
    r.read(QStringLiteral("lines_all_heads"), s.linesAllHeads);
}

HeadAnnotations readAnnotations(const QJsonValue& value) {
    HeadAnnotations annotations;
    if (value.isUndefined()) return annotations;
    if (!value.isArray()) fail(QStringLiteral("\"annotations\" must be a list"));
    const QJsonArray list = value.toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString where = QStringLiteral("annotations[%1]").arg(i);
        if (!list[i].isObject()) fail(QStringLiteral("\"%1\" must be an object").arg(where));
        const Reader r(list[i].toObject(), where);
        HeadKey key;
        key.kind = r.attention(QStringLiteral("attention"));
        r.read(QStringLiteral("layer"), key.layer);
        r.read(QStringLiteral("head"), key.head);
        QString name;
        r.read(QStringLiteral("name"), name);
        if (!name.trimmed().isEmpty()) annotations[key] = name.trimmed();
    }
    return annotations;
}

}  // namespace

const QStringList& sessionTabNames() {
    static const QStringList names = {QStringLiteral("head"),     QStringLiteral("compare"),
                                      QStringLiteral("overview"), QStringLiteral("training"),
                                      QStringLiteral("neurons"),  QStringLiteral("space"),
                                      QStringLiteral("lines")};
    return names;
}

QByteArray sessionToJson(const Session& s) {
    QJsonObject model{{QStringLiteral("folder"), s.model.folder}};
    if (!s.model.hubId.isEmpty()) {
        model[QStringLiteral("hub_id")] = s.model.hubId;
        model[QStringLiteral("revision")] = s.model.revision;
    }
    const QJsonObject config{{QStringLiteral("name"), QString::fromStdString(s.config.name())},
                             {QStringLiteral("scale_outside"), s.config.scaleOutside},
                             {QStringLiteral("mask_self"), s.config.maskSelf},
                             {QStringLiteral("normalize_keys"), s.config.normalizeKeys}};
    const QJsonObject view{{QStringLiteral("tab"), s.tab},
                           {QStringLiteral("attention"), attentionName(s.kind)},
                           {QStringLiteral("layer"), s.layer},
                           {QStringLiteral("head"), s.head},
                           {QStringLiteral("mode"), heatmapModeName(s.mode)},
                           {QStringLiteral("overview_metric"), s.overviewMetric},
                           {QStringLiteral("overview_thumbnails"), s.overviewThumbnails},
                           {QStringLiteral("compare_shared_scale"), s.compareSharedScale},
                           {QStringLiteral("space_pooled"), s.spacePooled},
                           {QStringLiteral("lines_all_heads"), s.linesAllHeads}};
    QJsonArray annotations;
    for (const auto& [key, name] : s.annotations)
        annotations.append(QJsonObject{{QStringLiteral("attention"), attentionName(key.kind)},
                                       {QStringLiteral("layer"), key.layer},
                                       {QStringLiteral("head"), key.head},
                                       {QStringLiteral("name"), name}});
    const QJsonObject root{
        {QStringLiteral("format"), kSessionFormat},
        {QStringLiteral("version"), kSessionVersion},
        {QStringLiteral("model"), model},
        {QStringLiteral("text"), s.text},
        {QStringLiteral("target_text"), s.targetText},
        {QStringLiteral("config"), config},
        {QStringLiteral("gqa_pairing"),
         s.pairing == GqaPairing::Modulo ? QStringLiteral("modulo") : QStringLiteral("hf")},
        {QStringLiteral("view"), view},
        {QStringLiteral("pinned_token"), s.pinnedToken ? QJsonValue(*s.pinnedToken) : QJsonValue()},
        {QStringLiteral("colors"), QJsonObject{{QStringLiteral("sequential"), s.sequentialMap},
                                               {QStringLiteral("diverging"), s.divergingMap}}},
        {QStringLiteral("annotations"), annotations}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

Session sessionFromJson(const QByteArray& json) {
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        fail(QStringLiteral("not a session file: invalid JSON at byte %1 (%2)")
                 .arg(parseError.offset)
                 .arg(parseError.errorString()));
    if (!doc.isObject()) fail(QStringLiteral("not a session file: the JSON is not an object"));
    const QJsonObject root = doc.object();
    const Reader r(root, QString());
    if (root.value(QStringLiteral("format")).toString() != kSessionFormat)
        fail(QStringLiteral("not a QKV Lab session: \"format\" is not \"%1\"").arg(kSessionFormat));
    const QJsonValue version = root.value(QStringLiteral("version"));
    if (!version.isDouble()) fail(QStringLiteral("not a QKV Lab session: \"version\" is missing"));
    if (version.toDouble() > kSessionVersion)
        fail(QStringLiteral("written by a newer QKV Lab (session version %1; this version reads "
                            "version %2 and older)")
                 .arg(version.toDouble())
                 .arg(kSessionVersion));
    if (version.toDouble() < 1 || version.toDouble() != version.toInt())
        fail(QStringLiteral("\"version\" must be a whole number from 1"));

    Session s;
    const Reader model(r.object(QStringLiteral("model")), QStringLiteral("model"));
    model.read(QStringLiteral("folder"), s.model.folder);
    model.read(QStringLiteral("hub_id"), s.model.hubId);
    model.read(QStringLiteral("revision"), s.model.revision);
    if (s.model.folder.isEmpty() && s.model.hubId.isEmpty())
        fail(QStringLiteral("\"model\" names no folder or Hub id"));
    r.read(QStringLiteral("text"), s.text);
    r.read(QStringLiteral("target_text"), s.targetText);
    s.config = readConfig(Reader(r.object(QStringLiteral("config")), QStringLiteral("config")));
    QString pairing = QStringLiteral("hf");
    r.read(QStringLiteral("gqa_pairing"), pairing);
    if (pairing != QLatin1String("hf") && pairing != QLatin1String("modulo"))
        fail(QStringLiteral("\"gqa_pairing\" must be hf or modulo"));
    s.pairing = pairing == QLatin1String("modulo") ? GqaPairing::Modulo : GqaPairing::HuggingFace;
    readView(Reader(r.object(QStringLiteral("view")), QStringLiteral("view")), s);
    if (const QJsonValue pin = root.value(QStringLiteral("pinned_token")); !pin.isNull()) {
        int token = -1;
        r.read(QStringLiteral("pinned_token"), token);
        if (token >= 0) s.pinnedToken = token;
    }
    const Reader colors(r.object(QStringLiteral("colors")), QStringLiteral("colors"));
    colors.read(QStringLiteral("sequential"), s.sequentialMap);
    colors.read(QStringLiteral("diverging"), s.divergingMap);
    s.annotations = readAnnotations(root.value(QStringLiteral("annotations")));
    return s;
}

Session readSessionFile(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        fail(QStringLiteral("%1: cannot read (%2)").arg(path, file.errorString()));
    constexpr qint64 kMaxSessionBytes = 16 << 20;  // a session is a few kilobytes
    if (file.size() > kMaxSessionBytes)
        fail(QStringLiteral("%1: too large for a session file").arg(path));
    try {
        return sessionFromJson(file.readAll());
    } catch (const Error& e) {
        fail(QStringLiteral("%1: %2").arg(path, QString::fromUtf8(e.what())));
    }
}

void writeSessionFile(const Session& session, const QString& path) {
    const QByteArray json = sessionToJson(session);
    writeFileAtomically(path.toStdString(), std::string_view(json.constData(), json.size()));
}

}  // namespace qkv::ui
