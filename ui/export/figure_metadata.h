#pragma once
// Puts a figure's provenance into each format's own metadata:
//   PNG  text chunks Title, Description, Software, Creation Time, Source and
//        "qkvlab:provenance" (the whole record as JSON); Qt writes tEXt, zTXt for long Latin-1
//        values and iTXt for other text;
//   SVG  <title> and <desc>, and <metadata><qkvlab:provenance xmlns:qkvlab="…">JSON
//        </qkvlab:provenance></metadata> after the opening <svg> tag;
//   PDF  the document information Title, Subject (the one-line summary), Keywords, Creator,
//        Producer and CreationDate, and XMP metadata with dc:title, dc:description and the same
//        qkvlab:provenance element.
// figure_provenance_reader.h reads the record back from all three.
#include <QByteArray>
#include <QString>

#include "ui/export/figure_provenance.h"

class QImage;
class QPdfWriter;
class QSvgGenerator;

namespace qkv::ui {

inline constexpr char kProvenanceKey[] = "qkvlab:provenance";
inline constexpr char kProvenanceNamespace[] = "https://qkvlab.org/ns/1";

// "QKV Lab 0.1.0"
QString softwareName(const FigureProvenance& provenance);

void addPngText(QImage& image, const FigureProvenance& provenance);

void describeSvg(QSvgGenerator& svg, const FigureProvenance& provenance);
QByteArray withSvgMetadata(const QByteArray& svg, const FigureProvenance& provenance);

// Before painting: Title, Creator and the XMP packet. After: withPdfDetails for the rest of the
// document information, which QPdfWriter cannot set.
void describePdf(QPdfWriter& pdf, const FigureProvenance& provenance);
QByteArray withPdfDetails(const QByteArray& pdf, const FigureProvenance& provenance);

// & < > as entities: text fit for an XML element's content.
QString xmlEscaped(const QString& text);

}  // namespace qkv::ui
