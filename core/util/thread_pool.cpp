#include "core/util/thread_pool.h"

#include <algorithm>
#include <atomic>

namespace qkv {

ThreadPool::ThreadPool(int threads) {
    for (int i = 1; i < std::max(threads, 1); ++i)
        m_workers.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (auto& w : m_workers) w.join();
}

int ThreadPool::chunks(int count) const { return std::max(1, std::min(count, size())); }

void ThreadPool::parallelFor(int count, const std::function<void(int, int, int)>& fn) {
    if (count <= 0) return;
    const int n = chunks(count);
    if (n > 1) {
        std::lock_guard lock(m_mutex);
        m_task = &fn;
        m_count = count;
        m_chunks = n;
        m_pending = n - 1;
        ++m_generation;
    }
    if (n > 1) m_wake.notify_all();
    int begin, end;
    chunkRange(count, n, 0, begin, end);
    fn(0, begin, end);
    if (n > 1) {
        std::unique_lock lock(m_mutex);
        m_done.wait(lock, [this] { return m_pending == 0; });
        m_task = nullptr;
    }
}

void ThreadPool::forEachItem(int count, const std::function<void(int, int)>& fn) {
    std::atomic<int> next{0};
    parallelFor(size(), [&](int thread, int, int) {
        for (int item; (item = next.fetch_add(1, std::memory_order_relaxed)) < count;)
            fn(item, thread);
    });
}

void ThreadPool::workerLoop(int index) {
    unsigned seen = 0;
    for (;;) {
        const std::function<void(int, int, int)>* task;
        int count, n;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
            if (m_stop) return;
            seen = m_generation;
            task = m_task;
            count = m_count;
            n = m_chunks;
        }
        if (index >= n) continue;
        int begin, end;
        chunkRange(count, n, index, begin, end);
        (*task)(index, begin, end);
        {
            std::lock_guard lock(m_mutex);
            if (--m_pending == 0) m_done.notify_one();
        }
    }
}

}  // namespace qkv
