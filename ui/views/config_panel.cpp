#include "ui/views/config_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSignalBlocker>
#include <QStandardItemModel>

#include "core/model/applicable_configurations.h"
#include "ui/document/lab_document.h"
#include "ui/views/flow_layout.h"

namespace qkv::ui {
namespace {

const QString kCustom = QStringLiteral("custom");

Projection projectionAt(int index) { return static_cast<Projection>(index); }

}  // namespace

ConfigPanel::ConfigPanel(LabDocument& document, QWidget* parent)
    : QWidget(parent), m_document(document) {
    auto* layout = new FlowLayout(this, 12);
    layout->setContentsMargins(0, 0, 0, 0);
    m_preset = new QComboBox(this);
    for (const std::string& name : attentionPresetNames())
        m_preset->addItem(QString::fromStdString(name));
    m_preset->addItem(kCustom);
    m_preset->setToolTip(tr("Which learned matrices the Q, K and V slots use, in every layer"));
    layout->addWidget(oneLine(this, {new QLabel(tr("Configuration"), this), m_preset}));

    const char* slotNames[3] = {"Q", "K", "V"};
    for (int slot = 0; slot < 3; ++slot) {
        m_slots[slot] = new QComboBox(this);
        m_slots[slot]->addItems({"W_Q", "W_K", "W_V"});
        m_slots[slot]->setToolTip(
            tr("The learned matrix that fills the %1 slot").arg(slotNames[slot]));
        layout->addWidget(
            oneLine(this, {new QLabel(tr("%1 ←").arg(slotNames[slot]), this), m_slots[slot]}));
        connect(m_slots[slot], &QComboBox::currentIndexChanged, this, &ConfigPanel::onSlotsChanged);
    }
    m_scaleOutside = new QCheckBox(tr("scale outside softmax"), this);
    m_scaleOutside->setToolTip(tr("Apply 1/√d_k after the softmax: rows stop summing to one"));
    m_maskSelf = new QCheckBox(tr("mask self"), this);
    m_maskSelf->setToolTip(tr("Tokens may not attend to themselves (Reformer)"));
    layout->addWidget(m_scaleOutside);
    layout->addWidget(m_maskSelf);

    connect(m_preset, &QComboBox::currentIndexChanged, this, &ConfigPanel::onPresetChosen);
    connect(m_scaleOutside, &QCheckBox::toggled, this, &ConfigPanel::onOptionsChanged);
    connect(m_maskSelf, &QCheckBox::toggled, this, &ConfigPanel::onOptionsChanged);
    connect(&document, &LabDocument::configChanged, this, &ConfigPanel::showConfig);
    connect(&document, &LabDocument::modelChanged, this, &ConfigPanel::offerApplicableChoices);
    showConfig();
}

// Latent attention and full-bilinear heads define fewer configurations: the others stay
// listed, disabled, with the reason as their tooltip.
void ConfigPanel::offerApplicableChoices() {
    const auto model = m_document.model();
    auto enable = [&](QComboBox* box, int index, const WConfiguration& config) {
        auto* items = qobject_cast<QStandardItemModel*>(box->model());
        if (!items) return;
        const std::string refusal =
            model ? configurationRefusal(model->architecture(), config) : std::string();
        items->item(index)->setEnabled(refusal.empty());
        items->item(index)->setToolTip(QString::fromStdString(refusal));
    };
    for (int i = 0; i < m_preset->count(); ++i) {
        const QString name = m_preset->itemText(i);
        if (name != kCustom) enable(m_preset, i, WConfiguration::parse(name.toStdString()));
    }
    // A slot's source is offered where the learned configuration with that one slot changed
    // is defined.
    for (int slot = 0; slot < 3; ++slot)
        for (int source = 0; source < 3; ++source) {
            WConfiguration config;
            (slot == 0   ? config.querySource
             : slot == 1 ? config.keySource
                         : config.valueSource) = projectionAt(source);
            enable(m_slots[slot], source, config);
        }
}

void ConfigPanel::onPresetChosen() {
    const QString name = m_preset->currentText();
    if (name == kCustom) return;  // the slots define it
    WConfiguration config = WConfiguration::parse(name.toStdString());
    config.scaleOutside = m_scaleOutside->isChecked();
    config.maskSelf = m_maskSelf->isChecked();
    m_document.setConfig(config);
}

void ConfigPanel::onSlotsChanged() {
    WConfiguration config;
    config.querySource = projectionAt(m_slots[0]->currentIndex());
    config.keySource = projectionAt(m_slots[1]->currentIndex());
    config.valueSource = projectionAt(m_slots[2]->currentIndex());
    config.scaleOutside = m_scaleOutside->isChecked();
    config.maskSelf = m_maskSelf->isChecked();
    m_document.setConfig(config);
}

void ConfigPanel::onOptionsChanged() {
    WConfiguration config = m_document.config();
    config.scaleOutside = m_scaleOutside->isChecked();
    config.maskSelf = m_maskSelf->isChecked();
    m_document.setConfig(config);
}

void ConfigPanel::showConfig() {
    const WConfiguration& config = m_document.config();
    const QSignalBlocker b0(m_preset), b1(m_slots[0]), b2(m_slots[1]), b3(m_slots[2]),
        b4(m_scaleOutside), b5(m_maskSelf);
    const int preset = m_preset->findText(QString::fromStdString(config.name()));
    m_preset->setCurrentIndex(preset >= 0 ? preset : m_preset->findText(kCustom));
    m_slots[0]->setCurrentIndex(static_cast<int>(config.querySource));
    m_slots[1]->setCurrentIndex(static_cast<int>(config.keySource));
    m_slots[2]->setCurrentIndex(static_cast<int>(config.valueSource));
    m_scaleOutside->setChecked(config.scaleOutside);
    m_maskSelf->setChecked(config.maskSelf);
}

}  // namespace qkv::ui
