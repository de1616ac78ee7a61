#pragma once
// Ends a worker object's QThread and deletes the worker from the owning (GUI) thread.
#include <QObject>
#include <QThread>

namespace qkv::ui {

// Waits until the worker's thread has run everything queued before this call (a standard-library
// handshake, so ThreadSanitizer sees the ordering that Qt's uninstrumented event queue provides),
// then quits and joins the thread and deletes the worker. Queue nothing for the worker after this.
void finishWorkerThread(QThread& thread, QObject* worker);

}  // namespace qkv::ui
