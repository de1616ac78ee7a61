#pragma once
// The QKV Lab window: sentence, configuration and token chips on top; the Head, Compare,
// Overview and Training tabs; the weight panel docked at the side; menus, shortcuts, export,
// drag-and-drop, persisted settings and a status bar (model, tokens, backend, last computation).
// Dialogs go through a MessageSink so tests can run it without blocking.
#include <QMainWindow>
#include <QTimer>
#include <functional>
#include <memory>
#include <optional>

#include "ui/export/figure_export.h"
#include "ui/session/session_file.h"

class QAction;
class QActionGroup;
class QLabel;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QDockWidget;
class QScrollArea;
class QTabWidget;
class QCustomPlot;

namespace qkv::ui {

class AtlasView;
struct AtlasExampleTarget;
class CompareView;
class ConfigPanel;
class EmptyState;
class ExportAllJob;
class HeadPicker;
class HeadView;
class HeatmapWidget;
class LabDocument;
class MessageSink;
class OverviewView;
class NeuronView;
class SpaceView;
class LinesView;
class SentenceBar;
class TokenChips;
class TrainingView;
class WeightPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    enum class Tab {
        Head = 0,
        Compare = 1,
        Overview = 2,
        Training = 3,
        Neurons = 4,
        Space = 5,
        Lines = 6,
        Atlas = 7
    };

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    LabDocument& document() const { return *m_document; }
    // Not owned; the default shows message boxes.
    void setMessageSink(MessageSink* sink);

    // Opens PATH from the command line, else the most recent model, else the bundled
    // "*-learned" example, and restores the last sentence (or an example one).
    void startup(const QStringList& modelArguments);
    void openModel(const QString& folder);
    // File ▸ Open from Hugging Face…; with an id, that model is downloaded and opened.
    void openFromHub(const QString& downloadId = QString());
    // File ▸ Open Experiment…: shows a `qkvlab-cli experiment` folder in the Training tab. A
    // folder that cannot be read goes to the message sink and changes nothing; returns whether
    // it opened. Opening a model, or File ▸ Close Experiment, returns to the model's variants.
    bool openExperiment(const QString& folder);
    void closeExperiment();
    // File ▸ Compare With…: runs every computation through a second checkpoint of the open model
    // too (a GGUF file or a model folder); once it is open the Overview shows each head's
    // attention change, and the Compare tab both heads. Refusals (another architecture or
    // vocabulary) go to the message sink. An empty location stops comparing.
    void compareWith(const QString& location);
    // File ▸ Open Atlas…: shows an atlas file in the Atlas tab; an unreadable one goes to the
    // message sink. Returns whether it opened.
    bool openAtlas(const QString& path);
    // An atlas example in the Head view: its ids as the sentence ("#ids"), its head, its query
    // pinned; the atlas's model is opened first when another is open.
    void openAtlasExample(const AtlasExampleTarget& target);

    // Sessions (*.qkvlab, session_file.h): the model, sentences, configuration, head, view and
    // head names. openSession() reports an unreadable file, another format, a newer version or
    // a missing model to the message sink and changes nothing; else the session's model opens
    // (if another is open) and its state follows. It does not ask about unsaved changes: the
    // menu does (confirmUnsavedChanges) before choosing a file.
    bool openSession(const QString& path);
    bool saveSession(const QString& path);  // errors go to the message sink
    QString sessionPath() const { return m_sessionPath; }
    Session currentSession() const;
    // Asks Save / Discard / Cancel when the window has unsaved changes (a session's state differs
    // from its file, or heads are named with no session saved yet); true when it may go on.
    bool confirmUnsavedChanges();

    // The current tab's figure. Errors (nothing shown, unwritable folder, full disk) go to the
    // message sink and leave no file behind; returns whether the file was written.
    bool exportCurrentView(const QString& path);
    bool copyCurrentViewToClipboard();
    // Starts exporting every head into `folder`; the job reports progress and can be cancelled.
    ExportAllJob* exportAllHeads(const QString& folder, ImageFormat format);

    // What the current tab can export: its figure written to a file or drawn as an image at
    // `size`; nullopt while the tab shows no figure.
    struct ExportableView {
        std::function<std::optional<double>(const QString& path, const QSize& size)> write;
        std::function<QImage(const QSize& size)> image;
        QCustomPlot* plot = nullptr;  // replotted after an export laid it out at another size
        QSize size;
    };

    void showTab(Tab tab);
    Tab currentTab() const;
    HeatmapWidget* currentHeatmap() const;  // null on a tab drawn without one (Q·K space, Lines)
    QSize exportSize() const;

    HeadView* headView() const { return m_headView; }
    CompareView* compareView() const { return m_compareView; }
    OverviewView* overviewView() const { return m_overviewView; }
    NeuronView* neuronView() const { return m_neuronView; }
    SpaceView* spaceView() const { return m_spaceView; }
    LinesView* linesView() const { return m_linesView; }
    AtlasView* atlasView() const { return m_atlasView; }
    TrainingView* trainingView() const { return m_trainingView; }
    WeightPanel* weightPanel() const { return m_weightPanel; }
    TokenChips* tokenChips() const { return m_chips; }
    SentenceBar* sentenceBar() const { return m_sentence; }
    ConfigPanel* configPanel() const { return m_configPanel; }
    HeadPicker* headPicker() const { return m_headPicker; }
    EmptyState* emptyState() const { return m_emptyState; }
    // The status bar's fields: "model", "tokens", "backend", "time".
    QString statusField(const QString& name) const;

  protected:
    void closeEvent(QCloseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void fitDetailsDock();
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

  private:
    std::optional<ExportableView> currentExportable() const;

    static bool isDownloadableId(const QString& location);
    void buildLayout();
    void buildStatusBar();
    void buildMenus();
    void buildFileMenu();
    void buildViewMenu();
    void buildComputeMenu();
    void buildCompareActions(QMenu* file);
    void onCompareWith();
    void restoreSettings();
    void rebuildRecentMenu();
    void showCentralPage();
    void saveSentence();
    void applySession(const Session& session, const QString& path);
    void closeSession();
    void updateModified();
    void updateWindowTitle();
    void trackSessionChanges();
    bool onSaveSession();
    bool onSaveSessionAs();
    void onOpenSession();

    void onOpen();
    void onOpenGguf();
    void onOpenExperiment();
    void onOpenAtlas();
    void applyAtlasExample(const AtlasExampleTarget& target);
    // After the pending example's model opened: the example, or a dialog when the model opened
    // is another checkpoint than the atlas's.
    void applyOpenedAtlasExample(const AtlasExampleTarget& target);
    void onExport();
    void onExportAll(ImageFormat format);
    void onModelLoading(const QString& folder);
    void onModelChanged();
    void onModelFailed(const QString& folder, const QString& message);
    void onLoadCancelled(const QString& folder);
    void onSnapshotChanged();
    void onBusyChanged(bool busy);
    void onProgress(const QString& stage, int done, int total);
    void onBackendChanged(const QString& name);
    void onBackendFailed(const QString& choice, const QString& message);
    void onComputeFailed(const QString& message);

    std::unique_ptr<LabDocument> m_document;
    std::unique_ptr<MessageSink> m_dialogs;
    MessageSink* m_sink = nullptr;
    QTimer m_sentenceSave;
    QString m_sessionPath;                    // empty: no session file
    std::optional<Session> m_savedSession;    // what the file holds: the modified marker's baseline
    std::optional<Session> m_pendingSession;  // applied once its model has opened
    QString m_pendingSessionPath;

    QStackedWidget* m_pages = nullptr;
    EmptyState* m_emptyState = nullptr;
    SentenceBar* m_sentence = nullptr;
    ConfigPanel* m_configPanel = nullptr;
    TokenChips* m_chips = nullptr;
    HeadPicker* m_headPicker = nullptr;
    QTabWidget* m_tabs = nullptr;
    QScrollArea* m_workspaceScroll = nullptr;
    QDockWidget* m_detailsDock = nullptr;
    QString m_computeError;  // the status bar's last "could not analyse" message
    HeadView* m_headView = nullptr;
    CompareView* m_compareView = nullptr;
    OverviewView* m_overviewView = nullptr;
    NeuronView* m_neuronView = nullptr;
    SpaceView* m_spaceView = nullptr;
    LinesView* m_linesView = nullptr;
    AtlasView* m_atlasView = nullptr;
    // An atlas example waiting for its model to open.
    std::unique_ptr<AtlasExampleTarget> m_pendingExample;
    TrainingView* m_trainingView = nullptr;
    WeightPanel* m_weightPanel = nullptr;

    QMenu* m_recentMenu = nullptr;
    QMenu* m_examplesMenu = nullptr;
    QAction* m_closeExperiment = nullptr;
    QAction* m_exportData = nullptr;  // File ▸ Also Save the Data
    QAction* m_stopComparing = nullptr;
    QActionGroup* m_backendGroup = nullptr;
    QLabel* m_modelStatus = nullptr;
    QLabel* m_tokenStatus = nullptr;
    QLabel* m_backendStatus = nullptr;
    QLabel* m_timeStatus = nullptr;
    QProgressBar* m_busy = nullptr;
};

}  // namespace qkv::ui
