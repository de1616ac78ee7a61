#pragma once
// Rewrites a PDF's document information dictionary (Title, Subject, Keywords, ...) by appending
// an incremental update — a new Info object, an xref section for it and a trailer pointing back
// to the old one — so the bytes Qt wrote stay as they are and no offset needs fixing. QPdfWriter
// (Qt 6.4) writes only Title, Creator, Producer and CreationDate itself.
#include <QByteArray>
#include <QString>
#include <utility>
#include <vector>

namespace qkv::ui {

// `entries`: (key without the slash, value), each value written as a UTF-16 text string.
// Throws qkv::Error when `pdf` has no classic trailer to extend.
QByteArray withPdfInfo(const QByteArray& pdf,
                       const std::vector<std::pair<QByteArray, QString>>& entries);

}  // namespace qkv::ui
