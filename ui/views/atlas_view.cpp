#include "ui/views/atlas_view.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "core/report/atlas_run.h"
#include "core/util/error.h"
#include "ui/document/lab_document.h"
#include "ui/export/plot_provenance.h"
#include "ui/plot/atlas_figure.h"
#include "ui/support/setting.h"
#include "ui/views/flow_layout.h"
#include "ui/views/heatmap_widget.h"

namespace qkv::ui {
namespace {

const Setting<QString> kScoreSetting{QStringLiteral("atlas/score"), QStringLiteral("induction")};

enum Column { Rank, Value, Document, Token, Context, Columns };

QString number(double value) { return QString::number(value, 'f', 4); }

}  // namespace

AtlasView::AtlasView(LabDocument& document, QWidget* parent) : DocumentView(document, parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    m_score = new QComboBox(this);
    m_score->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_score->setMinimumContentsLength(22);
    const ControlRow controls = addControlRow(layout, tr("Colour by"), m_score);
    m_help = controls.hint;
    auto* open = new QPushButton(tr("&Open Atlas…"), this);
    open->setToolTip(
        tr("An atlas file written by qkvlab-cli atlas or qkvlab.atlas "
           "(Ctrl+Shift+A)"));
    controls.row->addWidget(open);
    m_summary = new QLabel(this);
    m_summary->setContentsMargins(8, 0, 8, 0);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);

    auto* split = new QSplitter(Qt::Horizontal, this);
    m_heatmap = new HeatmapWidget(split);
    auto* side = new QWidget(split);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(4, 0, 4, 0);
    m_examplesTitle = new QLabel(side);
    m_examplesTitle->setWordWrap(true);
    sideLayout->addWidget(m_examplesTitle);
    m_examples = new QTableWidget(0, Columns, side);
    m_examples->setHorizontalHeaderLabels(
        {tr("#"), tr("value"), tr("document"), tr("token"), tr("context (the query in « »)")});
    m_examples->verticalHeader()->hide();
    m_examples->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_examples->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_examples->setSelectionMode(QAbstractItemView::SingleSelection);
    // The query ends the context: a narrow column drops the text's start, not the query.
    m_examples->setTextElideMode(Qt::ElideLeft);
    m_examples->setWordWrap(false);
    m_examples->horizontalHeader()->setStretchLastSection(true);
    m_examples->setToolTip(
        tr("Double-click an example (or press Enter) to open its text in the "
           "Head view at its query"));
    sideLayout->addWidget(m_examples, 1);
    split->addWidget(m_heatmap);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    m_heatmap->setToolTipProvider([this](const HeatmapCell& cell) { return cellToolTip(cell); });
    connect(m_heatmap, &HeatmapWidget::cellClicked, this,
            [this](const HeatmapCell& cell) { selectHead(cell.row, cell.col); });
    connect(m_score, &QComboBox::currentIndexChanged, this, [this] {
        if (m_score->currentIndex() < 0) return;
        kScoreSetting.setValue(shownScore());
        m_help->setText(atlasScoreHelp(shownScore()));
        scheduleRefresh();
    });
    connect(open, &QPushButton::clicked, this, &AtlasView::openRequested);
    connect(m_examples, &QTableWidget::cellActivated, this,
            [this](int row, int) { activateExample(row); });
    connect(&document, &LabDocument::colorSchemeChanged, this, &AtlasView::scheduleRefresh);
    scheduleRefresh();
}

AtlasView::~AtlasView() = default;

bool AtlasView::openAtlas(const QString& path, QString* error) {
    try {
        auto file = AtlasFile::openToRead(path.toStdString());
        HeadAtlas atlas = file->atlas();
        m_file = std::move(file);
        m_atlas = std::move(atlas);
    } catch (const Error& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    m_path = path;
    const QString wanted = m_score->currentIndex() >= 0 ? shownScore() : kScoreSetting.value();
    {
        const QSignalBlocker quiet(m_score);
        m_score->clear();
        for (const std::string& s : m_atlas->scores()) {
            const QString name = QString::fromStdString(s);
            m_score->addItem(atlasScoreTitle(name), name);
        }
        m_score->setCurrentIndex(std::max(m_score->findData(wanted), 0));
    }
    m_help->setText(atlasScoreHelp(shownScore()));
    // The head that scores highest opens first: the atlas's most telling example.
    const int score = m_atlas->scoreIndex(shownScore().toStdString());
    double best = -INFINITY;
    for (int l = 0; l < m_atlas->layers(); ++l)
        for (int h = 0; h < m_atlas->heads(l); ++h)
            if (const auto mean = m_atlas->tally(l, h, score).mean(); mean && *mean > best) {
                best = *mean;
                m_layer = l;
                m_head = h;
            }
    scheduleRefresh();
    return true;
}

QString AtlasView::shownScore() const { return m_score->currentData().toString(); }

void AtlasView::setShownScore(const QString& score) {
    const int index = m_score->findData(score);
    if (index >= 0) m_score->setCurrentIndex(index);
}

void AtlasView::selectHead(int layer, int head) {
    if (!m_atlas || layer < 0 || layer >= m_atlas->layers() || head < 0 ||
        head >= m_atlas->heads(layer))
        return;
    m_layer = layer;
    m_head = head;
    scheduleRefresh();
}

const std::vector<AtlasExample>& AtlasView::shownExamples() const {
    static const std::vector<AtlasExample> kNone;
    if (!m_atlas || m_layer >= m_atlas->layers() || m_head >= m_atlas->heads(m_layer)) return kNone;
    const int score = m_atlas->scoreIndex(shownScore().toStdString());
    return score < 0 ? kNone : m_atlas->tally(m_layer, m_head, score).top;
}

void AtlasView::refresh() {
    if (!m_atlas) {
        m_summary->clear();
        m_heatmap->showPlaceholder(
            tr("Open an atlas file (File ▸ Open Atlas…, Ctrl+Shift+A): every head of a model "
               "scored over a corpus, written by qkvlab-cli atlas or qkvlab.atlas."));
        refreshExamples();
        return;
    }
    const AtlasProvenance& p = m_file->provenance();
    const int context = atlasOptionsFromJson(p.options).context;
    m_summary->setText(tr("%1 over %2: %3 documents, %4 tokens, %5 sequences of up to %6 tokens")
                           .arg(QString::fromStdString(p.model), QString::fromStdString(p.corpus))
                           .arg(m_file->documentsDone())
                           .arg(m_file->tokensDone())
                           .arg(m_atlas->sequences())
                           .arg(context));
    const int score = m_atlas->scoreIndex(shownScore().toStdString());
    if (score < 0) return;
    m_heatmap->showFigure(atlasFigure(*m_atlas, p, score), document().colorScheme(),
                          std::make_pair(m_layer, m_head));
    FigureProvenance provenance;
    provenance.model = p.model;
    provenance.text = p.corpus;
    provenance.view = "atlas";
    provenance.mode = shownScore().toStdString();
    setPlotProvenance(m_heatmap->plot(), provenance);
    refreshExamples();
}

void AtlasView::refreshExamples() {
    const std::vector<AtlasExample>& examples = shownExamples();
    m_examplesTitle->setText(m_atlas ? tr("Layer %1 · head %2: its best examples for %3")
                                           .arg(m_layer)
                                           .arg(m_head)
                                           .arg(atlasScoreTitle(shownScore()).toLower())
                                     : QString());
    m_examples->setRowCount(static_cast<int>(examples.size()));
    for (int r = 0; r < static_cast<int>(examples.size()); ++r) {
        const AtlasExample& e = examples[r];
        const QStringList cells = {QString::number(r + 1), number(e.value),
                                   QString::number(e.document),
                                   e.query < 0 ? tr("all") : QString::number(e.first + e.query),
                                   // « » where fonts lack ⟨ ⟩.
                                   QString::fromStdString(atlasExampleContext(*m_atlas, e, 16))
                                       .replace(u'⟨', u'«')
                                       .replace(u'⟩', u'»')};
        for (int c = 0; c < Columns; ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c == Context) item->setToolTip(cells[c]);
            m_examples->setItem(r, c, item);
        }
    }
    for (int c = 0; c < Context; ++c) m_examples->resizeColumnToContents(c);
}

QString AtlasView::cellToolTip(const HeatmapCell& cell) const {
    if (!m_atlas || cell.row >= m_atlas->layers() || cell.col >= m_atlas->heads(cell.row))
        return QString();
    QString text = tr("Layer %1 · head %2 (%3)")
                       .arg(cell.row)
                       .arg(cell.col)
                       .arg(QString::fromStdString(m_file->provenance().kinds.at(cell.row)));
    for (std::size_t s = 0; s < m_atlas->scores().size(); ++s) {
        const auto mean = m_atlas->tally(cell.row, cell.col, static_cast<int>(s)).mean();
        text += QStringLiteral("\n") +
                atlasScoreTitle(QString::fromStdString(m_atlas->scores()[s])) +
                QStringLiteral(": ") + (mean ? number(*mean) : QStringLiteral("–"));
    }
    return text + tr("\nclick: its best examples");
}

void AtlasView::activateExample(int row) {
    const std::vector<AtlasExample>& examples = shownExamples();
    if (row < 0 || row >= static_cast<int>(examples.size())) return;
    const AtlasExample& e = examples[row];
    const auto sequence = m_atlas->exampleSequences().find({e.document, e.first});
    if (sequence == m_atlas->exampleSequences().end()) return;
    AtlasExampleTarget target;
    // A relative model folder is taken from where the atlas is when it is not found as given.
    QString model = QString::fromStdString(m_file->provenance().model);
    const QString beside = QFileInfo(m_path).dir().filePath(model);
    if (QFileInfo(model).isRelative() && !QFileInfo::exists(model) && QFileInfo::exists(beside))
        model = beside;
    target.model = model;
    target.modelDigest = m_file->provenance().modelDigest;
    target.ids = sequence->second.ids;
    target.query = e.query;
    target.layer = m_layer;
    target.head = m_head;
    emit exampleActivated(target);
}

}  // namespace qkv::ui
