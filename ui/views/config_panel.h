#pragma once
// The W configuration: a preset (learned, shared-qk, tied-kv, single-w, sym-scores,
// skew-scores) or custom slots (which learned matrix fills the Q, K and V slot), and the options
// scale-outside-softmax and mask-self.
#include <QWidget>

class QCheckBox;
class QComboBox;

namespace qkv::ui {

class LabDocument;

class ConfigPanel : public QWidget {
    Q_OBJECT
  public:
    explicit ConfigPanel(LabDocument& document, QWidget* parent = nullptr);

    QComboBox* presetBox() const { return m_preset; }
    QComboBox* slotBox(int slot) const { return m_slots[slot]; }  // 0 Q, 1 K, 2 V
    QCheckBox* scaleOutsideBox() const { return m_scaleOutside; }
    QCheckBox* maskSelfBox() const { return m_maskSelf; }

  private:
    void onPresetChosen();
    void onSlotsChanged();
    void onOptionsChanged();
    void showConfig();
    void offerApplicableChoices();

    LabDocument& m_document;
    QComboBox* m_preset;
    QComboBox* m_slots[3];
    QCheckBox* m_scaleOutside;
    QCheckBox* m_maskSelf;
};

}  // namespace qkv::ui
