#pragma once
// The Neurons tab's figure (bertviz's neuron view): one row of a head's heatmap taken apart.
// Row 0 is the query token, the rows below its keys. Panels: q_i (row 0) above every k_j; the
// elementwise products q_i ∘ k_j, whose row sums are the dot products; then one column each for
// q_i·k_j, the score S_ij = c·q_i·k_j, the attention A_ij, and the OV norms (row 0: what the head
// writes at the query, ‖(A V W_O)_i‖; key rows: what it writes from each key over the sentence).
#include "core/analysis/head_vectors.h"
#include "ui/plot/heatmap_figure.h"

namespace qkv::ui {

struct NeuronFigureInput {
    NeuronRow row;
    HeadOutputNorms norms;
    int query = 0;
    QString queryLabel;
    QStringList keyLabels;
    double scale = 1;
    QString title;
};

FigureSpec neuronFigure(const NeuronFigureInput& input);

}  // namespace qkv::ui
