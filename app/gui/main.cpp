// qkvlab: the QKV Lab desktop app. `qkvlab [MODEL_FOLDER | HUB_ID | SESSION.qkvlab]`
#include <QApplication>
#include <QCommandLineParser>

#include "core/util/memory.h"
#include "ui/window/main_window.h"

int main(int argc, char** argv) {
    qkv::keepFreedMemoryForReuse();
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("QKVLab"));
    QApplication::setApplicationName(QStringLiteral("qkvlab"));
    QApplication::setApplicationDisplayName(QStringLiteral("QKV Lab"));
    QApplication::setApplicationVersion(QStringLiteral(QKV_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Inspect every attention head of a Hugging Face model under learned and "
                       "tied W_Q, W_K, W_V."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("model"),
                                 QStringLiteral("a model folder to open (config.json, "
                                                "model.safetensors, tokenizer files), a "
                                                "Hugging Face model id (cached, else downloaded), "
                                                "or a saved session (.qkvlab)"),
                                 QStringLiteral("[MODEL_FOLDER | HUB_ID | SESSION.qkvlab]"));
    parser.process(app);

    qkv::ui::MainWindow window;
    window.show();
    window.startup(parser.positionalArguments());
    return QApplication::exec();
}
