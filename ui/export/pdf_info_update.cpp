#include "ui/export/pdf_info_update.h"

#include <QRegularExpression>
#include <algorithm>

#include "core/util/error.h"

namespace qkv::ui {
namespace {

// Plain ASCII as a literal string (dates must be); anything else in UTF-16BE with its byte-order
// mark, as hex: any character, no escaping.
QByteArray pdfTextString(const QString& text) {
    const bool plain = std::all_of(text.begin(), text.end(), [](QChar c) {
        return c.unicode() >= 0x20 && c.unicode() < 0x7f && c != '(' && c != ')' && c != '\\';
    });
    if (plain) return '(' + text.toLatin1() + ')';
    QByteArray hex = "<FEFF";
    for (const QChar c : text) hex += QByteArray::number(c.unicode(), 16).rightJustified(4, '0');
    return hex.toUpper() + '>';
}

QByteArray trailerValue(const QByteArray& trailer, const char* pattern) {
    const auto match =
        QRegularExpression(QString::fromLatin1(pattern)).match(QString::fromLatin1(trailer));
    return match.hasMatch() ? match.captured(1).toLatin1() : QByteArray();
}

}  // namespace

QByteArray withPdfInfo(const QByteArray& pdf,
                       const std::vector<std::pair<QByteArray, QString>>& entries) {
    const qsizetype startxref = pdf.lastIndexOf("startxref");
    const qsizetype trailerAt = pdf.lastIndexOf("trailer", startxref);
    if (startxref < 0 || trailerAt < 0) throw Error("the PDF has no trailer to add its details to");
    const QByteArray trailer = pdf.mid(trailerAt, startxref - trailerAt);
    const QByteArray previous = pdf.mid(startxref + 9).trimmed().split('\n').value(0).trimmed();
    const QByteArray size = trailerValue(trailer, R"(/Size\s+(\d+))");
    const QByteArray root = trailerValue(trailer, R"(/Root\s+(\d+\s+\d+\s+R))");
    const QByteArray id = trailerValue(trailer, R"((/ID\s*\[[^\]]*\]))");
    if (size.isEmpty() || root.isEmpty() || previous.isEmpty())
        throw Error("the PDF's trailer lacks /Size, /Root or startxref");

    QByteArray out = pdf;
    if (!out.endsWith('\n')) out += '\n';
    const qsizetype infoAt = out.size();
    out += size + " 0 obj\n<<\n";
    for (const auto& [key, value] : entries) out += '/' + key + ' ' + pdfTextString(value) + '\n';
    out += ">>\nendobj\n";
    const qsizetype xrefAt = out.size();
    // Each xref entry is exactly 20 bytes: offset, generation, kind, two-byte end of line.
    out += "xref\n0 1\n0000000000 65535 f \n" + size + " 1\n" +
           QByteArray::number(infoAt).rightJustified(10, '0') + " 00000 n \n";
    out += "trailer\n<<\n/Size " + QByteArray::number(size.toLongLong() + 1) + "\n/Root " + root +
           "\n/Info " + size + " 0 R\n/Prev " + previous + '\n' + (id.isEmpty() ? "" : id + '\n') +
           ">>\nstartxref\n" + QByteArray::number(xrefAt) + "\n%%EOF\n";
    return out;
}

}  // namespace qkv::ui
