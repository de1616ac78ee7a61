#pragma once
// The side panel for the current head: the bilinear form W_Q W_Kᵀ (singular values, rank,
// parameter count against a full d_model² matrix, symmetry, eigenvalue positivity,
// directionality), the OV circuit (rank, largest singular value, copying score), the subspace
// similarities of W_Q, W_K and W_V, and for the clicked token pair the cosine of their keys
// versus of their values.
#include <initializer_list>
#include <vector>

#include "ui/compute/compute_types.h"
#include "ui/document/lab_document.h"
#include "ui/views/document_view.h"

class QCustomPlot;
class QBoxLayout;
class QFormLayout;
class QLabel;

namespace qkv::ui {

class WeightPanel : public DocumentView {
    Q_OBJECT
  public:
    explicit WeightPanel(LabDocument& document, QWidget* parent = nullptr);

    // The value labels, by name ("rank", "parameters", "symmetry", "positivity", "score-symmetry",
    // "qk", "qv", "kv", "pair", "key-cosine", "value-cosine"), for tests.
    QString valueText(const QString& name) const;
    QCustomPlot* spectrumPlot() const { return m_spectrum; }

  protected:
    void refresh() override;

  private:
    struct FormValue {
        QLabel** label;
        QString title, name;
        bool ownLine = false;  // several lines under the title, across the panel
    };
    // A form of selectable values, each stored in *label, added to `layout`.
    QFormLayout* addForm(QBoxLayout* layout, std::initializer_list<FormValue> values);
    // `ownLine`: the value takes the lines under its label, for a value of several lines.
    QLabel* addValue(QFormLayout* form, const QString& label, const QString& name,
                     bool ownLine = false);
    void showHeadMetrics();
    void showBand();
    void showTokenPair();
    void showCrossTokenPair(const TraceSnapshot& snapshot, const TokenPair& pair);
    void showSpectrum(const std::vector<double>& singularValues);

    QLabel* m_title;
    QLabel* m_formTitle;  // "Bilinear form M = W_Q W_Kᵀ", with diag(g) under QK-norm
    QLabel* m_formNote;   // what folding QK-norm gains leaves out; latent attention's factors
    QFormLayout* m_form;  // the form's rows (the rotary part's is latent attention's only)
    QWidget* m_body;      // hidden while no model is open
    QCustomPlot* m_spectrum;
    QLabel* m_pairHint;
    QLabel* m_pairVerdict;
    // The value labels (object names as valueText() takes them), shown as "—" until known.
    std::vector<QLabel*> m_values;
    QLabel *m_rank, *m_rotary, *m_parameters, *m_symmetry, *m_positivity, *m_directionality,
        *m_scoreSymmetry;
    QLabel *m_ovRank, *m_ovTop, *m_ovCopying;
    QLabel *m_qk, *m_qv, *m_kv, *m_baseline;
    QLabel *m_pair, *m_pairScores, *m_keyCosine, *m_valueCosine;
};

}  // namespace qkv::ui
