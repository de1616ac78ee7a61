#include "ui/window/hub_models_dialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/io/hub_cache.h"
#include "core/model/model_family.h"

namespace qkv::ui {
namespace {

enum Column { Id, Revision, Size, Architecture, Supported, Columns };

QTableWidgetItem* cell(const QString& text) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    return item;
}

}  // namespace

HubModelsDialog::HubModelsDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Open from Hugging Face"));
    auto* layout = new QVBoxLayout(this);
    auto* where = new QLabel(
        tr("Models in your Hugging Face cache (%1), where from_pretrained and huggingface-cli "
           "download put them:")
            .arg(QString::fromStdString(hubCacheDir().string())),
        this);
    where->setWordWrap(true);
    layout->addWidget(where);

    m_table = new QTableWidget(0, Columns, this);
    m_table->setHorizontalHeaderLabels(
        {tr("Model"), tr("Revision"), tr("Size"), tr("Architecture"), tr("QKV Lab")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(Id, QHeaderView::Stretch);
    layout->addWidget(m_table);

    m_id = new QLineEdit(this);
    m_id->setPlaceholderText(tr("or a model id, e.g. EleutherAI/pythia-160m"));
    m_id->setClearButtonEnabled(true);
    layout->addWidget(m_id);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_open = buttons->addButton(tr("&Open"), QDialogButtonBox::AcceptRole);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &HubModelsDialog::choose);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, &HubModelsDialog::choose);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        const auto rows = m_table->selectionModel()->selectedRows();
        if (!rows.isEmpty()) m_id->setText(m_table->item(rows.front().row(), Id)->text());
    });
    connect(m_id, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_open->setEnabled(isHubModelId(text.trimmed().toStdString()));
    });
    m_open->setEnabled(false);
    fill();
    resize(760, 420);
}

void HubModelsDialog::fill() {
    const QLocale locale;
    for (const CachedModel& m : listCachedModels()) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        auto* id = cell(QString::fromStdString(m.id));
        id->setData(Qt::UserRole, QString::fromStdString(m.snapshot.string()));
        id->setData(Qt::UserRole + 1, QString::fromStdString(m.revision));
        m_table->setItem(row, Id, id);
        m_table->setItem(row, Revision, cell(QString::fromStdString(m.revision).left(12)));
        m_table->setItem(row, Size, cell(locale.formattedDataSize(static_cast<qint64>(m.bytes))));
        m_table->setItem(
            row, Architecture,
            cell(m.modelType.empty() ? tr("no config.json") : QString::fromStdString(m.modelType)));
        const bool supported = !m.modelType.empty() && findFamily(m.modelType) != nullptr;
        m_table->setItem(row, Supported, cell(supported ? tr("supported") : tr("not yet")));
    }
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setSectionResizeMode(Id, QHeaderView::Stretch);
}

// A listed model opens at the revision shown (its snapshot folder when no branch names it); a
// typed id opens its cached main revision, or says why not.
void HubModelsDialog::choose() {
    const QString id = m_id->text().trimmed();
    if (!isHubModelId(id.toStdString())) return;
    m_location = id;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const QTableWidgetItem* item = m_table->item(row, Id);
        if (item->text() == id && item->data(Qt::UserRole + 1).toString() != QLatin1String("main"))
            m_location = item->data(Qt::UserRole).toString();
    }
    accept();
}

}  // namespace qkv::ui
