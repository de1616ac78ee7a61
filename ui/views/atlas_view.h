#pragma once
// The Atlas tab: an atlas file (qkvlab-cli atlas, qkvlab.atlas) as a layers x heads grid coloured
// by one of its scores, every number on hover; a click on a head lists its best examples for
// that score, and activating an example asks the window to open that text in the Head view at
// its query.
#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include "core/analysis/head_atlas.h"
#include "core/report/atlas_file.h"
#include "ui/views/document_view.h"

class QComboBox;
class QLabel;
class QTableWidget;

namespace qkv::ui {

class HeatmapWidget;
struct HeatmapCell;

// What an activated example asks to show: the sequence's ids in the atlas's model, one head,
// its query row (-1: the whole sequence).
struct AtlasExampleTarget {
    QString model;            // the atlas's model, as a location the app can open
    std::string modelDigest;  // atlasModelDigest: the checkpoint it was computed with
    std::vector<int> ids;
    int query = -1;
    int layer = 0, head = 0;
};

// A view of the document's colours only: the atlas is its own file, of its own model.
class AtlasView : public DocumentView {
    Q_OBJECT
  public:
    explicit AtlasView(LabDocument& document, QWidget* parent = nullptr);
    ~AtlasView() override;

    // Shows the atlas file; false with `error` set when it cannot be read (the view keeps what
    // it showed).
    bool openAtlas(const QString& path, QString* error);
    bool hasAtlas() const { return m_atlas.has_value(); }
    QString atlasPath() const { return m_path; }
    const HeadAtlas* atlas() const { return m_atlas ? &*m_atlas : nullptr; }

    QString shownScore() const;
    void setShownScore(const QString& score);
    // The head whose examples the table lists.
    void selectHead(int layer, int head);
    int selectedLayer() const { return m_layer; }
    int selectedHead() const { return m_head; }

    HeatmapWidget* heatmap() const { return m_heatmap; }
    QTableWidget* examplesTable() const { return m_examples; }
    // Asks to open the table's row-th example (what a double-click or Enter does).
    void activateExample(int row);

  signals:
    void openRequested();  // the tab's Open Atlas… button
    void exampleActivated(const qkv::ui::AtlasExampleTarget& target);

  protected:
    void refresh() override;

  private:
    void refreshExamples();
    QString cellToolTip(const HeatmapCell& cell) const;
    const std::vector<AtlasExample>& shownExamples() const;

    QComboBox* m_score;
    QLabel* m_help;
    QLabel* m_summary;
    HeatmapWidget* m_heatmap;
    QLabel* m_examplesTitle;
    QTableWidget* m_examples;
    QString m_path;
    std::unique_ptr<AtlasFile> m_file;
    std::optional<HeadAtlas> m_atlas;
    int m_layer = 0, m_head = 0;
};

}  // namespace qkv::ui
