#include "ui/document/document_python_check.h"

#include <QClipboard>
#include <QGuiApplication>

#include "core/report/python_snippet.h"
#include "core/util/error.h"
#include "ui/document/lab_document.h"

namespace qkv::ui {
namespace {

// Typed ids ("#464 3807") are no sentence to quote.
std::string sentenceOf(const QString& text) {
    return text.trimmed().startsWith(u'#') ? std::string() : text.toStdString();
}

}  // namespace

std::optional<QString> documentPythonCheck(const LabDocument& document) {
    const Model* model = document.model();
    const auto snapshot = document.snapshot();
    if (!model || !snapshot || snapshot->sourceTokens.empty()) return std::nullopt;
    PythonCheck check;
    check.model = modelSourceOfFolder(model->folder());
    check.architecture = model->architecture();
    check.ids = idsOf(snapshot->sourceTokens);
    check.text = sentenceOf(snapshot->text);
    if (check.architecture.isEncoderDecoder()) {
        check.targetIds = idsOf(snapshot->targetTokens);
        check.targetText = snapshot->targetText.toStdString();
    }
    check.kind = snapshot->kind;
    check.layer = document.layer();
    check.head = document.head();
    check.config = snapshot->config;
    return QString::fromStdString(pythonSnippet(check));
}

QString copyPythonCheck(const LabDocument& document) {
    std::optional<QString> script;
    try {
        script = documentPythonCheck(document);
    } catch (const Error& e) {
        return QObject::tr("Copy as Python: %1").arg(QString::fromStdString(e.what()));
    }
    if (!script) return QObject::tr("Copy as Python: open a model and type a sentence first");
    QGuiApplication::clipboard()->setText(*script);
    return script->contains(QStringLiteral("raise SystemExit("))
               ? QObject::tr(
                     "Copied a Python script that explains why transformers cannot "
                     "reproduce this configuration")
               : QObject::tr(
                     "Copied a Python script that recomputes layer %1, head %2 with "
                     "Hugging Face transformers")
                     .arg(document.layer())
                     .arg(document.head());
}

}  // namespace qkv::ui
