#include "ui/support/worker_thread.h"

#include <future>

namespace qkv::ui {

void finishWorkerThread(QThread& thread, QObject* worker) {
    std::promise<void> drained;
    std::future<void> done = drained.get_future();
    QMetaObject::invokeMethod(
        worker, [&drained] { drained.set_value(); }, Qt::QueuedConnection);
    done.wait();
    thread.quit();
    thread.wait();
    delete worker;
}

}  // namespace qkv::ui
