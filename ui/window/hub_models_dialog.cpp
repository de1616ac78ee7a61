#include "ui/window/hub_models_dialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "core/hub/hub_settings.h"
#include "core/io/gguf.h"
#include "core/io/hub_cache.h"
#include "core/io/local_stores.h"
#include "core/model/gguf_config.h"
#include "core/model/model_family.h"
#include "ui/support/message_sink.h"
#include "ui/window/hub_download_panel.h"

namespace qkv::ui {
namespace {

enum Column {
    IdColumn,
    RevisionColumn,
    SizeColumn,
    ArchitectureColumn,
    SupportedColumn,
    ColumnCount
};

QTableWidgetItem* cell(const QString& text) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    return item;
}

}  // namespace

HubModelsDialog::HubModelsDialog(QWidget* parent, MessageSink* messages) : QDialog(parent) {
    if (!messages) {
        m_ownMessages = std::make_unique<DialogMessageSink>(this);
        messages = m_ownMessages.get();
    }
    m_messages = messages;
    setWindowTitle(tr("Open from Hugging Face, Ollama, LM Studio"));
    const HubSettings& hub = m_hub;
    auto* layout = new QVBoxLayout(this);
    auto* where = new QLabel(
        tr("Models on this machine: the Hugging Face cache (%1), where from_pretrained, "
           "huggingface-cli and QKV Lab put them, and the GGUF files of Ollama's and LM Studio's "
           "stores (Revision says which):")
            .arg(QString::fromStdString(hub.cache.string())),
        this);
    where->setWordWrap(true);
    layout->addWidget(where);

    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setHorizontalHeaderLabels(
        {tr("Model"), tr("Revision"), tr("Size"), tr("Architecture"), tr("QKV Lab")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    layout->addWidget(m_table);
    m_nothingFound = new QLabel(this);
    m_nothingFound->setObjectName(QStringLiteral("nothingFound"));
    m_nothingFound->setWordWrap(true);
    m_nothingFound->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_nothingFound, 1);

    auto* idRow = new QHBoxLayout;
    m_id = new QLineEdit(this);
    m_id->setPlaceholderText(tr("or a model id, e.g. EleutherAI/pythia-160m"));
    m_id->setClearButtonEnabled(true);
    m_revision = new QLineEdit(this);
    m_revision->setPlaceholderText(tr("main"));
    m_revision->setToolTip(tr("Branch, tag or commit (default main)"));
    m_revision->setMaximumWidth(160);
    idRow->addWidget(m_id, 1);
    idRow->addWidget(new QLabel(tr("Revision:"), this));
    idRow->addWidget(m_revision);
    layout->addLayout(idRow);

    m_download = new HubDownloadPanel(this);
    layout->addWidget(m_download);
    auto* source = new QLabel(
        hub.offline ? tr("HF_HUB_OFFLINE is set: only the cache is used.")
                    : tr("Downloads come from %1 (HF_ENDPOINT)%2 and fetch only config.json, "
                         "safetensors weights and tokenizer files.")
                          .arg(QString::fromStdString(hub.endpoint),
                               hub.token.empty() ? QString() : tr(" with your token")),
        this);
    source->setWordWrap(true);
    layout->addWidget(source);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_fetch = buttons->addButton(tr("&Download"), QDialogButtonBox::ActionRole);
    auto* browse = buttons->addButton(tr("&Browse…"), QDialogButtonBox::ActionRole);
    browse->setToolTip(tr("A model folder (choose its config.json) or a GGUF file"));
    connect(browse, &QPushButton::clicked, this, &HubModelsDialog::browse);
    m_open = buttons->addButton(tr("&Open"), QDialogButtonBox::AcceptRole);
    m_open->setDefault(true);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &HubModelsDialog::choose);
    connect(buttons, &QDialogButtonBox::rejected, this, &HubModelsDialog::reject);
    connect(m_fetch, &QPushButton::clicked, this,
            [this] { download(m_id->text().trimmed(), false); });
    connect(m_table, &QTableWidget::cellDoubleClicked, this, &HubModelsDialog::choose);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        const auto rows = m_table->selectionModel()->selectedRows();
        if (rows.isEmpty()) return;
        const QTableWidgetItem* item = m_table->item(rows.front().row(), IdColumn);
        m_id->setText(item->text());
        const QString revision = item->data(Qt::UserRole).toString();
        m_revision->setText(revision == QLatin1String("main") ? QString() : revision);
    });
    connect(m_id, &QLineEdit::textChanged, this, &HubModelsDialog::updateButtons);
    connect(m_revision, &QLineEdit::textChanged, this, &HubModelsDialog::updateButtons);
    connect(m_download, &HubDownloadPanel::finished, this,
            [this](const QString& id, const QString& snapshot) {
                fill();
                for (int row = 0; row < m_table->rowCount(); ++row)
                    if (m_table->item(row, IdColumn)->text() == id) m_table->selectRow(row);
                updateButtons();
                if (m_openWhenDone) {
                    m_location = snapshot;
                    accept();
                }
            });
    connect(m_download, &HubDownloadPanel::failed, this,
            [this](const QString&, const QString& message) {
                updateButtons();
                if (!message.isEmpty()) m_messages->error(tr("Download failed"), message);
            });
    fill();
    updateButtons();
    resize(820, 480);
}

HubModelsDialog::~HubModelsDialog() = default;

void HubModelsDialog::fill() {
    const QLocale locale;
    m_table->setRowCount(0);
    for (const CachedModel& m : listCachedModels(m_hub.cache)) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        auto* id = cell(QString::fromStdString(m.id));
        id->setData(Qt::UserRole, QString::fromStdString(m.revision));
        m_table->setItem(row, IdColumn, id);
        m_table->setItem(row, RevisionColumn, cell(QString::fromStdString(m.revision).left(12)));
        m_table->setItem(row, SizeColumn,
                         cell(locale.formattedDataSize(static_cast<qint64>(m.bytes))));
        m_table->setItem(
            row, ArchitectureColumn,
            cell(m.modelType.empty() ? tr("no config.json") : QString::fromStdString(m.modelType)));
        const bool supported = !m.modelType.empty() && findFamily(m.modelType) != nullptr;
        m_table->setItem(row, SupportedColumn, cell(supported ? tr("supported") : tr("not yet")));
    }
    // GGUF files other tools keep, opened by their name (ollama:NAME:TAG, lmstudio:...).
    for (const auto& [models, where] : {std::pair{listOllamaModels(), tr("Ollama")},
                                        std::pair{listLmStudioModels(), tr("LM Studio")}})
        for (const LocalModel& m : models) {
            const int row = m_table->rowCount();
            m_table->insertRow(row);
            m_table->setItem(row, IdColumn, cell(QString::fromStdString(m.name)));
            m_table->setItem(row, RevisionColumn, cell(where));
            m_table->setItem(row, SizeColumn,
                             cell(locale.formattedDataSize(static_cast<qint64>(m.bytes))));
            std::string architecture;
            try {
                architecture = GgufFile(m.file).string("general.architecture").value_or("");
            } catch (const Error&) {
                architecture.clear();  // unreadable: said below
            }
            const std::vector<std::string>& read = ggufArchitecturesRead();
            const bool supported = std::find(read.begin(), read.end(), architecture) != read.end();
            const QString arch = QString::fromStdString(architecture);
            m_table->setItem(row, ArchitectureColumn,
                             cell(arch.isEmpty() ? tr("not a readable GGUF") : tr("GGUF ") + arch));
            m_table->setItem(row, SupportedColumn,
                             cell(supported ? tr("supported") : tr("not yet")));
        }
    // Nothing found: say where it looked, so that a model kept elsewhere can be found.
    m_table->setVisible(m_table->rowCount() > 0);
    m_nothingFound->setVisible(m_table->rowCount() == 0);
    m_nothingFound->setText(
        tr("No models found on this machine. Looked in the Hugging Face cache (%1; HF_HOME or "
           "HF_HUB_CACHE set another), Ollama's store (%2; OLLAMA_MODELS sets another) and LM "
           "Studio's models (%3). Type a model id below to download one, or Browse… for a "
           "model folder's config.json or a GGUF file.")
            .arg(QDir::toNativeSeparators(QString::fromStdString(m_hub.cache.string())),
                 QDir::toNativeSeparators(QString::fromStdString(ollamaModelsFolder().string())),
                 QDir::toNativeSeparators(
                     QString::fromStdString((lmStudioHome() / "models").string()))));
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setSectionResizeMode(IdColumn, QHeaderView::Stretch);
}

bool HubModelsDialog::localName() const {
    const QString text = m_id->text().trimmed();
    return text.startsWith(QLatin1String("ollama:")) || text.startsWith(QLatin1String("lmstudio:"));
}

QString HubModelsDialog::cachedSnapshot() const {
    const std::string id = m_id->text().trimmed().toStdString();
    const QString revision = m_revision->text().trimmed();
    const auto snapshot =
        findCachedSnapshot(id, revision.isEmpty() ? "main" : revision.toStdString(), m_hub.cache);
    return snapshot ? QString::fromStdString(snapshot->string()) : QString();
}

void HubModelsDialog::updateButtons() {
    const bool idle = !m_download->isRunning();
    const bool local = localName();
    const bool valid = local || isHubModelId(m_id->text().trimmed().toStdString());
    m_id->setEnabled(idle);
    m_revision->setEnabled(idle);
    m_table->setEnabled(idle);
    m_fetch->setEnabled(idle && valid && !local && !m_hub.offline);
    m_open->setEnabled(idle && valid);
    m_open->setText(valid && !local && cachedSnapshot().isEmpty() ? tr("Download and &Open")
                                                                  : tr("&Open"));
}

void HubModelsDialog::download(const QString& id, bool openWhenDone) {
    if (!isHubModelId(id.trimmed().toStdString()) || m_download->isRunning()) return;
    m_id->setText(id.trimmed());
    m_openWhenDone = openWhenDone;
    m_download->start(id.trimmed(), m_revision->text().trimmed());
    updateButtons();
}

// A cached model opens at once; one the cache lacks is downloaded first.
void HubModelsDialog::choose() {
    if (!m_open->isEnabled()) return;
    if (localName()) {  // Model::open resolves it in its store
        m_location = m_id->text().trimmed();
        return accept();
    }
    const QString snapshot = cachedSnapshot();
    if (snapshot.isEmpty()) return download(m_id->text(), true);
    m_location = snapshot;
    accept();
}

void HubModelsDialog::browse() {
    const QString chosen = QFileDialog::getOpenFileName(
        this, tr("Open a model"), QDir::homePath(),
        tr("A model folder's config.json or a GGUF file (config.json *.gguf)"));
    if (chosen.isEmpty()) return;
    const QFileInfo file(chosen);
    m_location = file.suffix().compare(QLatin1String("gguf"), Qt::CaseInsensitive) == 0
                     ? file.absoluteFilePath()
                     : file.absolutePath();
    accept();
}

void HubModelsDialog::reject() {
    m_download->cancelAndWait();
    QDialog::reject();
}

}  // namespace qkv::ui
