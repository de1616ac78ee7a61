#include "ui/views/weight_panel.h"

#include <qcustomplot.h>

#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include "core/analysis/head_metrics.h"
#include "core/analysis/latent_forms.h"
#include "ui/document/lab_document.h"
#include "ui/plot/head_figures.h"
#include "ui/views/cell_tooltip.h"

namespace qkv::ui {
namespace {

QLabel* sectionLabel(const QString& text, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    label->setStyleSheet(QStringLiteral("font-weight: bold; margin-top: 8px;"));
    label->setWordWrap(true);
    return label;
}

// A full-bilinear head has no W_Q or W_K whose column spaces could be compared.
const QString kNoSubspaces = QStringLiteral("not defined: one W_h, no W_Q or W_K");

}  // namespace

WeightPanel::WeightPanel(LabDocument& document, QWidget* parent) : DocumentView(document, parent) {
    auto* outer = new QVBoxLayout(this);
    m_title = new QLabel(this);
    m_title->setStyleSheet(QStringLiteral("font-size: 14px; font-weight: bold;"));
    m_title->setWordWrap(true);
    outer->addWidget(m_title);
    m_body = new QWidget(this);
    outer->addWidget(m_body);
    outer->addStretch(1);
    auto* layout = new QVBoxLayout(m_body);
    layout->setContentsMargins(0, 0, 0, 0);

    m_formTitle = sectionLabel(tr("Bilinear form M = W_Q W_Kᵀ"), this);
    layout->addWidget(m_formTitle);
    m_formNote = new QLabel(this);
    m_formNote->setWordWrap(true);
    layout->addWidget(m_formNote);
    m_spectrum = new QCustomPlot(this);
    m_spectrum->setMinimumHeight(150);
    m_spectrum->setMaximumHeight(190);
    m_spectrum->xAxis->setLabel(tr("singular value index"));
    m_spectrum->yAxis->setLabel(tr("σ"));
    new QCPBars(m_spectrum->xAxis, m_spectrum->yAxis);
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1);  // singular values are numbered 1, 2, ...
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_spectrum->xAxis->setTicker(ticker);
    m_spectrum->xAxis->setSubTicks(false);
    layout->addWidget(m_spectrum);

    m_form = addForm(layout, {{&m_rank, tr("rank"), "rank"},
                              {&m_rotary, tr("rotary part"), "rotary"},
                              {&m_parameters, tr("parameters"), "parameters", true},
                              {&m_symmetry, tr("symmetry s(M)"), "symmetry"},
                              {&m_positivity, tr("eigenvalue positivity"), "positivity"},
                              {&m_directionality, tr("directionality"), "directionality"},
                              {&m_scoreSymmetry, tr("score symmetry s(S)"), "score-symmetry"}});

    layout->addWidget(sectionLabel(tr("OV circuit W_OV = W_V W_O (what the head writes)"), this));
    addForm(layout, {{&m_ovRank, tr("rank"), "ov-rank"},
                     {&m_ovTop, tr("largest σ"), "ov-sigma"},
                     {&m_ovCopying, tr("copying score"), "ov-copying"}});

    layout->addWidget(
        sectionLabel(tr("Subspace similarity (mean cos² of principal angles)"), this));
    addForm(layout, {{&m_qk, tr("W_Q vs W_K"), "qk"},
                     {&m_qv, tr("W_Q vs W_V"), "qv"},
                     {&m_kv, tr("W_K vs W_V"), "kv"},
                     {&m_baseline, tr("random baseline"), "baseline"}});

    layout->addWidget(sectionLabel(tr("Token pair"), this));
    m_pairHint = new QLabel(tr("Click a heatmap cell to compare the keys and the values of "
                               "its two tokens."),
                            this);
    m_pairHint->setWordWrap(true);
    layout->addWidget(m_pairHint);
    addForm(layout, {{&m_pair, tr("pair"), "pair"},
                     {&m_pairScores, tr("scores"), "pair-scores"},
                     {&m_keyCosine, tr("cosine of keys"), "key-cosine"},
                     {&m_valueCosine, tr("cosine of values"), "value-cosine"}});
    m_pairVerdict = new QLabel(this);
    m_pairVerdict->setWordWrap(true);
    layout->addWidget(m_pairVerdict);

    connectRefresh();
    connect(&document, &LabDocument::metricsChanged, this, &WeightPanel::scheduleRefresh);
    connect(&document, &LabDocument::headChanged, this, &WeightPanel::scheduleRefresh);
    connect(&document, &LabDocument::tokenPairChanged, this, &WeightPanel::scheduleRefresh);
}

QFormLayout* WeightPanel::addForm(QBoxLayout* layout, std::initializer_list<FormValue> values) {
    auto* form = new QFormLayout;
    for (const FormValue& v : values) *v.label = addValue(form, v.title, v.name, v.ownLine);
    layout->addLayout(form);
    return form;
}

QLabel* WeightPanel::addValue(QFormLayout* form, const QString& label, const QString& name,
                              bool ownLine) {
    auto* value = new QLabel(QStringLiteral("—"), this);
    value->setObjectName(name);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    value->setWordWrap(true);
    if (ownLine) {
        // Several lines of its own, under the label across the panel's width: in the value
        // column they wrapped again, and the form clipped the last line.
        value->setContentsMargins(12, 0, 0, 0);
        form->addRow(new QLabel(label, this));
        form->addRow(value);
    } else {
        form->addRow(label, value);
    }
    m_values.push_back(value);
    return value;
}

QString WeightPanel::valueText(const QString& name) const {
    for (const QLabel* label : m_values)
        if (label->objectName() == name) return label->text();
    return {};
}

void WeightPanel::refresh() {
    for (QLabel* label : m_values) label->setText(QStringLiteral("—"));
    m_pairVerdict->clear();
    const LabDocument& d = document();
    m_body->setVisible(d.model() != nullptr);
    if (!d.model()) {
        m_title->setText(tr("No model open"));
        return;
    }
    const QString kind = attentionKindTitle(d.attentionKind());
    const QString layerKind = d.shownLayerKind(d.layer());
    m_title->setText(
        (kind.isEmpty() ? QString() : kind + QStringLiteral(" · ")) +
        tr("Layer %1 · Head %2 · %3").arg(d.layer()).arg(d.head()).arg(configTitle(d.config())) +
        (layerKind.isEmpty() ? QString() : QStringLiteral("\n") + layerKind));
    if (d.showsBand()) return showBand();
    const Architecture c = d.shownArchitecture().atLayer(d.layer());
    const bool linear = c.mixerOf(d.layer()) == Mixer::GatedDeltaNet;
    const bool mamba = c.mixerOf(d.layer()) == Mixer::Mamba2;
    // Llama 4 normalises q and k on its RoPE layers only: a layer without the norms' weights.
    const bool selfLayer = d.attentionKind() == AttentionKind::Self;
    const bool qkNorm =
        d.attentionKind() != AttentionKind::Cross && c.qkNorm != QkNorm::None && !linear &&
        !mamba && !(selfLayer && d.model()->weights().layers[d.layer()].queryNorm.gamma.empty());
    const bool warmed = selfLayer && c.warmsQueries(d.layer());
    const bool latent = d.attentionKind() == AttentionKind::Self && c.latent.present();
    const bool valueIsKey =
        d.attentionKind() == AttentionKind::Self && c.kindOf(d.layer()).valueIsKey;
    m_formTitle->setText(latent            ? tr("Bilinear form M = W_DQ W_UQʰ (W_DKV W_UKʰ)ᵀ")
                         : qkNorm          ? tr("Bilinear form M = W_Q diag(g_q∘g_k) W_Kᵀ")
                         : c.bilinearHeads ? tr("Bilinear form M = W_h (one per head)")
                         : mamba           ? tr("Bilinear form W_C W_Bᵀ (C plays W_Q, B W_K)")
                                           : tr("Bilinear form M = W_Q W_Kᵀ"));
    m_formNote->setText(
        c.bilinearHeads
            ? tr("Full bilinear: this head scores with its own %1 × %1 matrix, S_ij = (x_i W_h + "
                 "c_h)·x_j / √%2, where a factored head's W_Q W_Kᵀ has rank at most d_k = %2. "
                 "There is no W_Q or W_K to share or tie.")
                  .arg(c.dModel)
                  .arg(c.valueWidth())
        : latent ? tr("Latent attention: every head's queries pass through one rank-%1 latent "
                      "and its keys through one rank-%2 latent shared by all heads, so M (the "
                      "non-rotary part, %3 dims per head) has rank at most %4. The %5 rotary dims "
                      "are apart: their key W_KR is one for every head. The latents' norm gains "
                      "are folded in, their per-token RMS factors left out.")
                       .arg(c.latent.queryRank > 0 ? c.latent.queryRank : c.dModel)
                       .arg(c.latent.keyValueRank)
                       .arg(c.latent.nopeDim)
                       .arg(latentFormRankBound(c))
                       .arg(c.latent.ropeDim)
        : qkNorm ? tr("QK-norm: the norms' gains g_q, g_k are folded into M; their per-token RMS "
                      "factors, which rescale each score, are left out.")
        : linear ? tr("Gated DeltaNet: W_Q, W_K and W_V are the rows of in_proj_qkv (never z's, "
                      "b's or a's). Each of q, k and v then passes a %1-tap causal convolution "
                      "and SiLU, and q and k become unit vectors: M leaves these out. The heatmap "
                      "is the implicit attention A (output = A·v), which the decays and the "
                      "delta rule's corrections make signed.")
                       .arg(d.shownArchitecture().deltaNet.convKernel)
        : mamba ? tr("Mamba-2 (state-space duality): W_C, W_B and W_x are in_proj's C, B and x "
                     "rows and play W_Q, W_K and W_V (never z's or dt's rows); B and C are shared "
                     "by the %1 heads of a group. Each passes a %2-tap causal convolution with a "
                     "bias and SiLU, which the form leaves out, as it leaves out the step size Δ "
                     "and the decay exp(ΣΔA). The heatmap is the implicit attention M (y = M·x + "
                     "D·x), signed; the skip D is in its scale's label.")
                      .arg(c.heads / c.kvHeads)
                      .arg(d.shownArchitecture().mamba2.convKernel)
                : QString());
    if (warmed)
        m_formNote->setText(
            m_formNote->text() + (m_formNote->text().isEmpty() ? QString() : QStringLiteral("\n")) +
            tr("Query temperature: the query of position p (after rotary, where the layer has "
               "it) is multiplied by 1 + %1·ln(1 + ⌊(p + %2)/%3⌋), so later queries score more "
               "sharply; a factor per query, which M leaves out.")
                .arg(c.queryTemperature.beta)
                .arg(c.queryTemperature.offset)
                .arg(c.queryTemperature.interval));
    if (valueIsKey)
        m_formNote->setText(m_formNote->text() + QStringLiteral("\n") +
                            tr("W_V = W_K (tied by the model): this layer has no value "
                               "projection; its values are the key projection itself, taken "
                               "before the key's norm and rotation. Under tied-kv nothing "
                               "changes here."));
    const int lender = selfLayer ? c.kindOf(d.layer()).keyValueSource : -1;
    if (lender >= 0)
        m_formNote->setText(
            m_formNote->text() + QStringLiteral("\n") +
            tr("Shared keys and values: this layer computes only its queries and attends over "
               "layer %1's keys and values, computed there from layer %1's input. W_K and W_V "
               "here are layer %1's, so M pairs this layer's queries with layer %1's keys; a "
               "configuration changes them in layer %1.")
                .arg(lender));
    m_formNote->setVisible(latent || qkNorm || linear || mamba || valueIsKey || warmed ||
                           c.bilinearHeads || lender >= 0);
    m_form->setRowVisible(m_rotary, latent);
    showHeadMetrics();
    showTokenPair();
}

// A short convolution has no W_Q, W_K or W_V and no heads: nothing to measure, only what it is.
void WeightPanel::showBand() {
    const LabDocument& d = document();
    const Architecture c = d.shownArchitecture();
    m_title->setText(tr("Layer %1 · short convolution · %2\n%3")
                         .arg(d.layer())
                         .arg(configTitle(d.config()))
                         .arg(d.shownLayerKind(d.layer())));
    m_formTitle->setText(tr("No bilinear form: a short convolution"));
    m_formNote->setText(
        tr("in_proj gives B, C and x for each of the %1 channels; y = C·conv(B·x), a causal "
           "convolution of %2 taps a channel without an activation, then out_proj. No token is "
           "compared with another, so there are no queries, keys, scores or heads: the Head view "
           "draws each channel's taps (its band). Under shared-qk B's rows are C's.")
            .arg(c.dModel)
            .arg(c.shortConv.convKernel));
    m_formNote->setVisible(true);
    m_form->setRowVisible(m_rotary, false);
    m_parameters->setText(QStringLiteral("—"));
    m_baseline->setText(QStringLiteral("—"));
    showSpectrum({});
}

void WeightPanel::showHeadMetrics() {
    const LabDocument& d = document();
    const Architecture c = d.shownArchitecture().atLayer(d.layer());
    const bool latent = d.attentionKind() == AttentionKind::Self && c.latent.present();
    const BilinearParameterCount count = bilinearParameterCount(c, d.config());
    const QLocale locale;
    // Two short lines: one long wrapped line was clipped by the next row of the form.
    if (c.bilinearHeads) {
        const long long factored = 2LL * c.dModel * c.valueWidth();
        m_parameters->setText(tr("W_h: d_model² = %1\nvs 2·d_model·d_k = %2 factored")
                                  .arg(locale.toString(count.full), locale.toString(factored)));
    } else if (latent) {
        const LatentParameterCount own = latentParameterCount(c);
        m_parameters->setText(tr("W_UQʰ, W_UKʰ: %1 per head\n+ W_DQ, W_DKV: %2 shared\nvs "
                                 "d_model² = %3")
                                  .arg(locale.toString(own.perHead), locale.toString(own.shared),
                                       locale.toString(count.full)));
    } else {
        m_parameters->setText(
            (count.oneFactor ? tr("d_model·d_k = %1 (one W for Q and K)\nvs d_model² = %2 (%3%)")
                             : tr("2·d_model·d_k = %1\nvs d_model² = %2 (%3%)"))
                .arg(locale.toString(count.factored), locale.toString(count.full))
                .arg(count.full > 0 ? 100.0 * count.factored / count.full : 0.0, 0, 'f', 1));
    }
    // Random subspaces as wide as the compared ones: latent attention compares its non-rotary
    // parts (qk_nope_head_dim wide).
    m_baseline->setText(
        c.bilinearHeads ? QStringLiteral("—")
        : latent
            ? tr("d_nope / d_model = %1").arg(formatNumber(double(c.latent.nopeDim) / c.dModel))
            : tr("d_k / d_model = %1").arg(formatNumber(double(c.headDim) / c.dModel)));
    const auto metrics = d.metrics();
    const auto early = d.headMetrics();  // the shown head, ahead of the whole model
    const HeadMetrics* found = nullptr;
    if (metrics && metrics->kind == d.attentionKind() && metrics->pairing == d.gqaPairing() &&
        d.layer() < static_cast<int>(metrics->metrics->layers.size()))
        found = &metrics->metrics->layers[d.layer()].heads.at(d.head());
    else if (early && early->layer == d.layer() && early->head == d.head() &&
             early->config == d.config() && early->kind == d.attentionKind() &&
             early->pairing == d.gqaPairing())
        found = &early->metrics;
    if (!found) {
        showSpectrum({});
        return;
    }
    const HeadMetrics& h = *found;
    showSpectrum(h.wqkSingularValues);
    m_rank->setText(latent ? tr("%1 of at most %2, the latents' and the head's least (d_model = "
                                "%3)")
                                 .arg(h.wqkRank)
                                 .arg(latentFormRankBound(c))
                                 .arg(c.dModel)
                    : c.bilinearHeads
                        ? tr("%1 of at most d_model = %2 (a factored head's: d_k = %3)")
                              .arg(h.wqkRank)
                              .arg(c.dModel)
                              .arg(c.valueWidth())
                        : tr("%1 of at most d_k = %2 (d_model = %3)")
                              .arg(h.wqkRank)
                              .arg(c.headDim)
                              .arg(c.dModel));
    if (h.rotaryPart)
        m_rotary->setText(tr("rank %1 of %2, symmetry %3 (key W_KR shared by every head)")
                              .arg(h.rotaryPart->rank)
                              .arg(c.latent.ropeDim)
                              .arg(formatNumber(h.rotaryPart->symmetry)));
    m_symmetry->setText(formatNumber(h.wqkSymmetry));
    m_positivity->setText(formatNumber(h.eigenPositivity));
    m_directionality->setText(formatNumber(h.wqkDirectionality));
    m_ovRank->setText(latent || c.bilinearHeads
                          ? tr("%1 of at most d_v = %2").arg(h.ovRank).arg(c.valueWidth())
                          : tr("%1 of at most d_k = %2").arg(h.ovRank).arg(c.headDim));
    if (!h.ovSingularValues.empty()) m_ovTop->setText(formatNumber(h.ovSingularValues.front()));
    // The copying score comes with the whole model's metrics (one W_U W_E product for all).
    m_ovCopying->setText(h.ovCopyingScore                    ? formatNumber(*h.ovCopyingScore)
                         : early && found == &early->metrics ? tr("computing…")
                                                             : tr("none (no output head)"));
    m_scoreSymmetry->setText(h.scoreSymmetry ? formatNumber(*h.scoreSymmetry)
                             : d.snapshot()  ? tr("not captured")
                                             : tr("comes with a sentence"));
    if (c.bilinearHeads) {            // W_h spans what it likes and the key side is the identity
        m_qk->setText(kNoSubspaces);  // the other rows keep their dash
        return;
    }
    m_qk->setText(formatNumber(h.qkSimilarity));
    m_qv->setText(formatNumber(h.qvSimilarity));
    m_kv->setText(formatNumber(h.kvSimilarity));
}

void WeightPanel::showTokenPair() {
    const LabDocument& d = document();
    const auto pair = d.tokenPair();
    const auto snapshot = d.snapshot();
    m_pairHint->setVisible(!pair);
    if (!pair || !snapshot || !snapshot->includes(d.layer(), d.head())) return;
    const auto& trace = *snapshot->trace;
    if (snapshot->kind == AttentionKind::Cross) return showCrossTokenPair(*snapshot, *pair);
    m_pair->setText(tokenPairHeading(snapshot->tokens, pair->query, pair->key));
    if (trace.hasScores(d.layer(), d.head())) {
        const auto& s = trace.scores(d.layer(), d.head());
        m_pairScores->setText(QStringLiteral("S_ij = %1, S_ji = %2")
                                  .arg(formatNumber(s(pair->query, pair->key)),
                                       formatNumber(s(pair->key, pair->query))));
    }
    const TokenPairSimilarity sim =
        tokenPairSimilarity(trace, d.layer(), d.head(), pair->query, pair->key);
    m_keyCosine->setText(formatNumber(sim.keyCosine));
    m_valueCosine->setText(formatNumber(sim.valueCosine));
    if (pair->query != pair->key && sim.keyCosine - sim.valueCosine > 0.3)
        m_pairVerdict->setText(
            tr("Their keys agree more than their values: a query finds both "
               "alike, yet they contribute different content — why K and V "
               "are separate matrices."));
}

// In cross-attention a target token reads source tokens: the source token it reads most against
// the one clicked — whether the keys that decide where it looks agree more than the values it
// takes away (the K = V question of translation).
void WeightPanel::showCrossTokenPair(const TraceSnapshot& snapshot, const TokenPair& pair) {
    const LabDocument& d = document();
    const auto& trace = *snapshot.trace;
    if (!trace.hasProbabilities(d.layer(), d.head())) return;
    Eigen::Index top = 0;
    trace.probabilities(d.layer(), d.head()).row(pair.query).maxCoeff(&top);
    const std::vector<ShownToken>& source = snapshot.columnTokens();
    m_pair->setText(tokenPairHeading(snapshot.tokens, source, pair.query, pair.key) +
                    tr("<br>against <b>%1</b> (%2), the source token it reads most")
                        .arg(source.at(top).label.toHtmlEscaped())
                        .arg(top));
    if (trace.hasScores(d.layer(), d.head()))
        m_pairScores->setText(
            QStringLiteral("S_ij = %1")
                .arg(formatNumber(trace.scores(d.layer(), d.head())(pair.query, pair.key))));
    const TokenPairSimilarity sim =
        tokenPairSimilarity(trace, d.layer(), d.head(), static_cast<int>(top), pair.key);
    m_keyCosine->setText(formatNumber(sim.keyCosine));
    m_valueCosine->setText(formatNumber(sim.valueCosine));
    if (top != pair.key && sim.keyCosine - sim.valueCosine > 0.3)
        m_pairVerdict->setText(
            tr("Their keys agree more than their values: the target token would look at both "
               "alike, yet they carry different content into it — what tied-kv (K = V) gives "
               "up."));
}

void WeightPanel::showSpectrum(const std::vector<double>& singularValues) {
    auto* bars = qobject_cast<QCPBars*>(m_spectrum->plottable(0));
    QVector<double> keys, values;
    for (size_t i = 0; i < singularValues.size(); ++i) {
        keys << static_cast<double>(i + 1);
        values << singularValues[i];
    }
    bars->setData(keys, values);
    bars->setWidth(0.8);
    bars->setBrush(QColor(0x21, 0x90, 0x8d));
    bars->setPen(Qt::NoPen);
    m_spectrum->xAxis->setRange(0.3, std::max<double>(singularValues.size(), 1) + 0.7);
    const double top = singularValues.empty() ? 1.0 : singularValues.front();
    m_spectrum->yAxis->setRange(0, top > 0 ? top * 1.08 : 1.0);
    m_spectrum->replot();
}

}  // namespace qkv::ui
