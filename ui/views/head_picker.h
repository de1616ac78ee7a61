#pragma once
// Which head the Head and Compare tabs show (layer, head) and what its heatmap shows
// (attention, raw scores, S - S^T).
#include <QWidget>

class QAbstractButton;
class QButtonGroup;
class QComboBox;
class QLabel;
class QSpinBox;

namespace qkv::ui {

class LabDocument;

class HeadPicker : public QWidget {
    Q_OBJECT
  public:
    explicit HeadPicker(LabDocument& document, QWidget* parent = nullptr);

    QSpinBox* layerBox() const { return m_layer; }
    QSpinBox* headBox() const { return m_head; }
    QAbstractButton* modeButton(int mode) const;
    QComboBox* kindBox() const { return m_kind; }

  private:
    void onModelChanged();
    void onHeadChanged(int layer, int head);
    void onModeChanged();
    void onSpinChanged();

    LabDocument& m_document;
    QComboBox* m_kind;  // encoder-decoder models: encoder, decoder or cross-attention
    QSpinBox* m_layer;
    QSpinBox* m_head;
    QLabel* m_range;
    QButtonGroup* m_modes;
};

}  // namespace qkv::ui
