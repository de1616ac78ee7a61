#include "ui/views/compare_view.h"

#include <QCheckBox>
#include <QLabel>
#include <QVBoxLayout>
#include <cmath>

#include "ui/document/lab_document.h"
#include "ui/support/setting.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/heatmap_widget.h"

namespace qkv::ui {
namespace {

const Setting<bool> kSharedScale{QStringLiteral("compare/sharedScale"), true};

}  // namespace

CompareView::CompareView(LabDocument& document, QWidget* parent)
    : HeadFigureView(document, parent) {
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    m_hint->setContentsMargins(8, 4, 8, 0);
    m_hint->hide();
    layout()->insertWidget(0, m_hint);
    m_sharedScale = new QCheckBox(tr("One colour scale for both panels"), this);
    m_sharedScale->setChecked(kSharedScale.value());
    m_sharedScale->setToolTip(
        tr("Off, each panel has its own scale: a configuration whose "
           "values shrink (scale outside the softmax) shows its pattern"));
    m_sharedScale->setContentsMargins(8, 0, 8, 0);
    layout()->insertWidget(1, m_sharedScale);
    connect(m_sharedScale, &QCheckBox::toggled, this, [this](bool shared) {
        kSharedScale.setValue(shared);
        scheduleRefresh();
    });
}

bool CompareView::sharedScale() const { return m_sharedScale->isChecked(); }
QString CompareView::hintText() const { return m_hint->isHidden() ? QString() : m_hint->text(); }
void CompareView::setSharedScale(bool shared) { m_sharedScale->setChecked(shared); }

FigureSpec CompareView::buildFigure(const HeadFigureInput& input) const {
    HeadFigureInput shown = input;
    shown.sharedScale = sharedScale();
    return compareFigure(shown);
}

void CompareView::onFigureShown(bool shown) {
    const LabDocument& d = document();
    if (!shown || !d.snapshot()) {
        m_hint->hide();
        return;
    }
    if (d.snapshot()->compared) {
        m_hint->setText(tr("Comparing with <b>%1</b> (File ▸ Compare With…): the same tokens "
                           "through both checkpoints under the same configuration. The Overview's "
                           "<i>attention change</i> ranks every head.")
                            .arg(d.snapshot()->comparedName.toHtmlEscaped()));
        m_hint->show();
        return;
    }
    const WConfiguration& config = d.snapshot()->config;
    const bool learned = config == WConfiguration{};
    // Gemma 4's global layers: tied-kv is what the model does there.
    const bool tiedByModel = d.attentionKind() == AttentionKind::Self &&
                             d.shownArchitecture().kindOf(d.layer()).valueIsKey &&
                             config.valueSource == Projection::Key;
    // Only V's slot changed (tied-kv): V does not enter a layer's own scores, so its attention
    // changes only through the layers before it, and the first layer's not at all.
    WConfiguration withLearnedValues = config;
    withLearnedValues.valueSource = Projection::Value;
    const bool onlyValues = !learned && !tiedByModel && withLearnedValues == WConfiguration{};
    if (onlyValues) {
        m_hint->setText(
            d.layer() == 0 && d.attentionKind() != AttentionKind::Cross
                ? tr("Only the V slot changes here, and V does not enter a layer's scores: the "
                     "first layer's attention cannot change, so the difference is zero (up to "
                     "float32 rounding). Later layers differ through what the earlier ones "
                     "wrote.")
                : tr("Only the V slot changes here, and V does not enter a layer's own scores: "
                     "what differs in this layer comes from what the layers before it wrote."));
        m_hint->show();
        return;
    }
    // A full-bilinear model has nothing to tie: what it can change is its scores.
    m_hint->setText(learned && d.shownArchitecture().bilinearHeads
                        ? tr("The configuration is <b>learned</b>, so both panels agree: pick "
                             "sym-scores or skew-scores to see what each part of W_h does (a "
                             "full-bilinear head has no W_Q or W_K to tie).")
                    : learned
                        ? tr("The configuration is <b>learned</b>, so both panels agree: pick "
                             "another configuration (e.g. shared-qk) to see what tying "
                             "changes.")
                        : tr("This layer ties <b>W_V = W_K</b> itself (the model has no value "
                             "projection here), so the configuration's V := K changes nothing "
                             "in it: what differs comes from the layers before it."));
    m_hint->setVisible(learned || tiedByModel);
}

QString CompareView::cellValues(const HeatmapCell& cell) const {
    const auto& spec = heatmap()->figure().spec();
    QStringList lines;
    for (const HeatmapPanel& panel : spec.panels) {
        const double v = panel.data.at(cell.row, cell.col);
        lines << QStringLiteral("%1: %2").arg(panel.title.toHtmlEscaped(),
                                              std::isnan(v) ? tr("masked") : formatNumber(v));
    }
    return lines.join(QStringLiteral("<br>"));
}

}  // namespace qkv::ui
