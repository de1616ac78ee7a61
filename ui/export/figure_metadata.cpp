#include "ui/export/figure_metadata.h"

#include <QImage>
#include <QPdfWriter>
#include <QStringList>
#include <QSvgGenerator>

#include "ui/export/pdf_info_update.h"

namespace qkv::ui {
namespace {

QString qs(const std::string& text) { return QString::fromStdString(text); }

QString recordJson(const FigureProvenance& p) {
    return qs(p.toJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

QString keywords(const FigureProvenance& p) {
    QStringList words{QStringLiteral("QKV Lab")};
    if (!p.model.empty()) words << qs(p.model);
    if (!p.view.empty()) words << qs(p.view);
    if (p.mode) words << qs(*p.mode);
    if (p.block) words << qs(*p.block);
    if (p.layer) words << QStringLiteral("layer %1").arg(*p.layer);
    if (p.head) words << QStringLiteral("head %1").arg(*p.head);
    if (p.config) words << qs(*p.config);
    return words.join(QStringLiteral(", "));
}

// "2025-01-31T12:34:56Z" as a PDF date, "D:20250131123456Z".
QString pdfDate(const std::string& iso) {
    QString digits;
    for (const char c : iso)
        if (c >= '0' && c <= '9') digits += QChar(c);
    return QStringLiteral("D:") + digits + QStringLiteral("Z");
}

QByteArray xmpPacket(const FigureProvenance& p) {
    auto alt = [](const char* element, const QString& text) {
        return QStringLiteral(
                   "<%1><rdf:Alt><rdf:li xml:lang=\"x-default\">%2</rdf:li></rdf:Alt></%1>\n")
            .arg(QLatin1String(element), xmlEscaped(text));
    };
    QString xmp = QStringLiteral(
                      "<?xpacket begin=\"\xEF\xBB\xBF\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n"
                      "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\n"
                      "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n"
                      "<rdf:Description rdf:about=\"\" "
                      "xmlns:dc=\"http://purl.org/dc/elements/1.1/\" "
                      "xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" "
                      "xmlns:pdf=\"http://ns.adobe.com/pdf/1.3/\" xmlns:qkvlab=\"%1\">\n")
                      .arg(QLatin1String(kProvenanceNamespace));
    xmp += alt("dc:title", qs(p.title()));
    xmp += alt("dc:description", qs(p.summary()));
    xmp += QStringLiteral("<pdf:Keywords>%1</pdf:Keywords>\n").arg(xmlEscaped(keywords(p)));
    xmp +=
        QStringLiteral("<xmp:CreatorTool>%1</xmp:CreatorTool>\n").arg(xmlEscaped(softwareName(p)));
    if (!p.exportedAt.empty())
        xmp += QStringLiteral("<xmp:CreateDate>%1</xmp:CreateDate>\n").arg(qs(p.exportedAt));
    xmp += QStringLiteral("<qkvlab:provenance>%1</qkvlab:provenance>\n")
               .arg(xmlEscaped(recordJson(p)));
    xmp += QStringLiteral("</rdf:Description>\n</rdf:RDF>\n</x:xmpmeta>\n<?xpacket end=\"w\"?>");
    return xmp.toUtf8();
}

}  // namespace

QString xmlEscaped(const QString& text) {
    QString out = text;
    return out.replace(QLatin1Char('&'), QStringLiteral("&amp;"))
        .replace(QLatin1Char('<'), QStringLiteral("&lt;"))
        .replace(QLatin1Char('>'), QStringLiteral("&gt;"));
}

QString softwareName(const FigureProvenance& p) {
    return QStringLiteral("QKV Lab %1").arg(qs(p.appVersion)).trimmed();
}

void addPngText(QImage& image, const FigureProvenance& p) {
    image.setText(QStringLiteral("Title"), qs(p.title()));
    image.setText(QStringLiteral("Description"), qs(p.summary()));
    image.setText(QStringLiteral("Software"), softwareName(p));
    if (!p.exportedAt.empty()) image.setText(QStringLiteral("Creation Time"), qs(p.exportedAt));
    if (!p.model.empty())
        image.setText(QStringLiteral("Source"),
                      qs(p.model + (p.revision ? " @ " + *p.revision : std::string())));
    image.setText(QLatin1String(kProvenanceKey), recordJson(p));
}

void describeSvg(QSvgGenerator& svg, const FigureProvenance& p) {
    // QSvgGenerator writes both as given, unescaped.
    svg.setTitle(xmlEscaped(qs(p.title())));
    svg.setDescription(xmlEscaped(qs(p.summary())));
}

QByteArray withSvgMetadata(const QByteArray& svg, const FigureProvenance& p) {
    const qsizetype open = svg.indexOf("<svg");
    const qsizetype end = open < 0 ? -1 : svg.indexOf('>', open);
    if (end < 0) return svg;
    const QString metadata =
        QStringLiteral(
            "\n<metadata><qkvlab:provenance xmlns:qkvlab=\"%1\">%2</qkvlab:provenance>"
            "</metadata>")
            .arg(QLatin1String(kProvenanceNamespace), xmlEscaped(recordJson(p)));
    QByteArray out = svg;
    return out.insert(end + 1, metadata.toUtf8());
}

void describePdf(QPdfWriter& pdf, const FigureProvenance& p) {
    pdf.setTitle(qs(p.title()));
    pdf.setCreator(softwareName(p));
    pdf.setDocumentXmpMetadata(xmpPacket(p));
}

QByteArray withPdfDetails(const QByteArray& pdf, const FigureProvenance& p) {
    std::vector<std::pair<QByteArray, QString>> info = {
        {"Title", qs(p.title())},
        {"Subject", qs(p.summary())},
        {"Keywords", keywords(p)},
        {"Creator", softwareName(p)},
        {"Producer", softwareName(p) + QStringLiteral(" (Qt %1)").arg(QLatin1String(qVersion()))},
    };
    if (!p.exportedAt.empty()) info.emplace_back("CreationDate", pdfDate(p.exportedAt));
    return withPdfInfo(pdf, info);
}

}  // namespace qkv::ui
