#pragma once
// File ▸ Open from Hugging Face…: the models already in the Hugging Face cache (id, revision,
// size on disk, architecture, and whether QKV Lab reads it), and a field for any model id with
// a revision, which downloads what the cache lacks (with progress, cancellable, resumable).
#include <QDialog>
#include <memory>

#include "core/hub/hub_settings.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace qkv::ui {

class HubDownloadPanel;
class MessageSink;

class HubModelsDialog : public QDialog {
    Q_OBJECT
  public:
    // A failed download is reported to `messages` (a dialog over this one when null).
    explicit HubModelsDialog(QWidget* parent = nullptr, MessageSink* messages = nullptr);
    ~HubModelsDialog() override;
    // The snapshot folder to open, once accepted.
    QString location() const { return m_location; }
    // Fills in `id` and downloads it; with openWhenDone the dialog then accepts it.
    void download(const QString& id, bool openWhenDone);

    void reject() override;  // stops a running download first

  private:
    void fill();
    void choose();
    void browse();  // a folder's config.json or a GGUF file, accepted as the location
    void updateButtons();
    QString cachedSnapshot() const;  // of the id and revision typed; empty when not cached
    bool localName() const;          // ollama:... or lmstudio:... typed or chosen

    // Read once: the buttons are updated on every keystroke, and reading the settings reads the
    // token file.
    HubSettings m_hub = HubSettings::fromEnvironment();
    QTableWidget* m_table = nullptr;
    QLabel* m_nothingFound = nullptr;  // where it looked, shown instead of an empty table
    QLineEdit* m_id = nullptr;
    QLineEdit* m_revision = nullptr;
    HubDownloadPanel* m_download = nullptr;
    QPushButton* m_open = nullptr;
    QPushButton* m_fetch = nullptr;
    std::unique_ptr<MessageSink> m_ownMessages;
    MessageSink* m_messages = nullptr;
    bool m_openWhenDone = false;
    QString m_location;
};

}  // namespace qkv::ui
