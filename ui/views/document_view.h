#pragma once
// Base of the views that draw the document's results. A view redraws when the document changes
// only while it is visible; a hidden tab just remembers to redraw when it is shown, so typing
// costs one repaint, not one per tab.
#include <QString>
#include <QWidget>

class QLabel;
class QVBoxLayout;
#include <optional>
#include <utility>

namespace qkv::ui {

class FlowLayout;
class LabDocument;

class DocumentView : public QWidget {
    Q_OBJECT
  public:
    explicit DocumentView(LabDocument& document, QWidget* parent = nullptr);

    // Redraws now if visible, else when next shown.
    void scheduleRefresh();

  protected:
    virtual void refresh() = 0;
    void showEvent(QShowEvent* event) override;
    LabDocument& document() const { return m_document; }
    // Refresh on what every view shows: the model, its loading, the results and the colours.
    void connectRefresh();
    // Why the results cannot be shown (no model, loading, empty sentence, error), or empty.
    QString placeholder() const;
    // The same for a view of the selected head, which a short convolution's band is not.
    QString headPlaceholder() const;
    // The clicked token pair as a heatmap (row, col), to outline it.
    static std::optional<std::pair<int, int>> selectedCell(const LabDocument& document);
    // The line above a tab's figure, added to `layout`: "title [control]", then a grey hint
    // (further controls go to the row's end); in a narrow window they wrap onto more lines.
    struct ControlRow {
        FlowLayout* row;
        QLabel* hint;
    };
    ControlRow addControlRow(QVBoxLayout* layout, const QString& title, QWidget* control);

  private:
    LabDocument& m_document;
    bool m_dirty = true;
};

}  // namespace qkv::ui
