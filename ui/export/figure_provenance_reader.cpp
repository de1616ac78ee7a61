#include "ui/export/figure_provenance_reader.h"

#include <QFile>
#include <QImage>
#include <QXmlStreamReader>

#include "core/util/error.h"
#include "ui/export/figure_metadata.h"

namespace qkv::ui {
namespace {

// Read from the decoded image: QImageReader::text() splits keys at their first colon and
// simplifies the whitespace of values, which would break the JSON record.
std::optional<QString> pngRecord(const QByteArray& bytes) {
    const QImage image = QImage::fromData(bytes, "PNG");
    if (image.isNull()) throw Error("cannot decode the PNG");
    const QString text = image.text(QLatin1String(kProvenanceKey));
    if (text.isEmpty()) return std::nullopt;
    return text;
}

// The text of the first <qkvlab:provenance> element: an SVG's <metadata> or a PDF's XMP packet
// (stored uncompressed, as XMP must be), its entities decoded by an XML reader.
std::optional<QString> xmlRecord(const QByteArray& bytes) {
    const QByteArray open = QByteArray("<") + kProvenanceKey;
    const QByteArray close = QByteArray("</") + kProvenanceKey + '>';
    const qsizetype begin = bytes.indexOf(open);
    const qsizetype end = begin < 0 ? -1 : bytes.indexOf(close, begin);
    if (end < 0) return std::nullopt;
    // The element alone, with its prefix declared so that it parses on its own.
    const qsizetype contentAt = bytes.indexOf('>', begin) + 1;
    const QByteArray element = QByteArray("<r xmlns:qkvlab=\"") + kProvenanceNamespace + "\">" +
                               open + '>' + bytes.mid(contentAt, end - contentAt) + close + "</r>";
    QXmlStreamReader xml(element);
    while (xml.readNextStartElement()) {
        if (xml.qualifiedName() == QLatin1String(kProvenanceKey)) return xml.readElementText();
    }
    throw Error("its qkvlab:provenance element is not well-formed XML");
}

}  // namespace

std::optional<FigureProvenance> readFigureProvenance(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw Error(path.toStdString() + ": cannot read it (" + file.errorString().toStdString() +
                    ")");
    const QByteArray bytes = file.readAll();
    std::optional<QString> record;
    try {
        if (bytes.startsWith("\x89PNG\r\n\x1a\n"))
            record = pngRecord(bytes);
        else if (bytes.startsWith("%PDF-") || bytes.left(1024).contains("<svg"))
            record = xmlRecord(bytes);
        else
            throw Error("not a PNG, SVG or PDF file");
        if (!record) return std::nullopt;
        return FigureProvenance::fromJson(nlohmann::json::parse(record->toStdString()));
    } catch (const nlohmann::json::exception&) {
        throw Error(path.toStdString() + ": its provenance record is not valid JSON");
    } catch (const Error& e) {
        throw Error(path.toStdString() + ": " + e.what());
    }
}

}  // namespace qkv::ui
