#include "ui/views/head_picker.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <algorithm>
#include <vector>

#include "ui/document/lab_document.h"
#include "ui/views/flow_layout.h"

namespace qkv::ui {

HeadPicker::HeadPicker(LabDocument& document, QWidget* parent)
    : QWidget(parent), m_document(document) {
    auto* layout = new FlowLayout(this, 12);
    layout->setContentsMargins(0, 0, 0, 0);
    m_kind = new QComboBox(this);
    m_kind->addItem(tr("Encoder self-attention"), static_cast<int>(AttentionKind::Self));
    m_kind->addItem(tr("Decoder self-attention"), static_cast<int>(AttentionKind::DecoderSelf));
    m_kind->addItem(tr("Cross-attention (target → source)"),
                    static_cast<int>(AttentionKind::Cross));
    m_kind->setToolTip(
        tr("Which attention of the encoder-decoder model the views show (Ctrl+Alt+1, "
           "Ctrl+Alt+2, Ctrl+Alt+3): cross-attention's queries are the target's tokens, its keys "
           "and values the "
           "source's"));
    layout->addWidget(m_kind);
    m_layer = new QSpinBox(this);
    m_layer->setToolTip(tr("Layer (PageUp / PageDown)"));
    m_head = new QSpinBox(this);
    m_head->setToolTip(tr("Head (← / →)"));
    m_range = new QLabel(this);
    m_range->setStyleSheet(QStringLiteral("color: palette(mid);"));
    layout->addWidget(oneLine(this, {new QLabel(tr("Layer"), this), m_layer,
                                     new QLabel(tr("Head"), this), m_head, m_range}));

    m_modes = new QButtonGroup(this);
    std::vector<QToolButton*> buttons;
    for (HeatmapMode mode : {HeatmapMode::Attention, HeatmapMode::Scores, HeatmapMode::Asymmetry}) {
        auto* button = new QToolButton(this);
        button->setText(heatmapModeLabel(mode));
        button->setCheckable(true);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        m_modes->addButton(button, static_cast<int>(mode));
        buttons.push_back(button);
    }
    layout->addWidget(oneLine(this, {buttons[0], buttons[1], buttons[2]}));
    m_modes->button(static_cast<int>(HeatmapMode::Attention))
        ->setToolTip(tr("Attention probabilities A = softmax(mask(S))"));
    m_modes->button(static_cast<int>(HeatmapMode::Scores))
        ->setToolTip(tr("Raw scaled scores S = q kᵀ/√d_k, before masking"));
    m_modes->button(static_cast<int>(HeatmapMode::Asymmetry))
        ->setToolTip(tr("S − Sᵀ: zero everywhere when the scores are symmetric (shared-qk)"));

    connect(m_kind, &QComboBox::activated, this, [this](int index) {
        m_document.setAttentionKind(static_cast<AttentionKind>(m_kind->itemData(index).toInt()));
    });
    connect(&document, &LabDocument::attentionKindChanged, this, &HeadPicker::onModelChanged);
    connect(m_layer, &QSpinBox::valueChanged, this, &HeadPicker::onSpinChanged);
    connect(m_head, &QSpinBox::valueChanged, this, &HeadPicker::onSpinChanged);
    connect(m_modes, &QButtonGroup::idClicked, this,
            [this](int id) { m_document.setMode(static_cast<HeatmapMode>(id)); });
    connect(&document, &LabDocument::modelChanged, this, &HeadPicker::onModelChanged);
    connect(&document, &LabDocument::headChanged, this, &HeadPicker::onHeadChanged);
    connect(&document, &LabDocument::modeChanged, this, &HeadPicker::onModeChanged);
    onModelChanged();
    onModeChanged();
}

QAbstractButton* HeadPicker::modeButton(int mode) const { return m_modes->button(mode); }

void HeadPicker::onModelChanged() {
    const Model* model = m_document.model();
    const QSignalBlocker b1(m_layer), b2(m_head), b3(m_kind);
    const Architecture c = m_document.shownArchitecture();
    m_kind->setVisible(model && model->architecture().isEncoderDecoder());
    m_kind->setCurrentIndex(m_kind->findData(static_cast<int>(m_document.attentionKind())));
    m_layer->setRange(0, model ? c.layers - 1 : 0);
    setEnabled(model != nullptr);
    onHeadChanged(m_document.layer(), m_document.head());
}

// The head range is the shown layer's: a hybrid's linear layers have heads of their own count,
// and the layer's kind is said beside it.
void HeadPicker::onHeadChanged(int layer, int head) {
    const QSignalBlocker b1(m_layer), b2(m_head);
    const Architecture c = m_document.shownArchitecture();
    const bool model = m_document.model() != nullptr;
    m_layer->setValue(layer);
    m_head->setRange(0, model ? std::max(m_document.selectableHeads(layer) - 1, 0) : 0);
    m_head->setValue(head);
    QString range =
        model ? tr("of %1 layers × %2 heads").arg(c.layers).arg(c.headsOf(layer)) : QString();
    if (model && c.mixerOf(layer) == Mixer::ShortConv)
        range = tr("of %1 layers · short convolution: no heads, its band of %2 taps")
                    .arg(c.layers)
                    .arg(c.shortConv.convKernel);
    if (model && c.mixerOf(layer) == Mixer::GatedDeltaNet)
        range += tr(" · linear attention (implicit)");
    if (model && c.mixerOf(layer) == Mixer::Mamba2) range += tr(" · Mamba-2 (implicit)");
    m_range->setText(range);
}

void HeadPicker::onModeChanged() {
    m_modes->button(static_cast<int>(m_document.mode()))->setChecked(true);
}

void HeadPicker::onSpinChanged() { m_document.setHead(m_layer->value(), m_head->value()); }

}  // namespace qkv::ui
