#pragma once
// A fixed set of worker threads for the CPU backend and the training kernels. Work is split into
// contiguous chunks whose boundaries depend only on the count and the pool size, so reductions
// summed chunk by chunk in order give the same bits on every run with the same thread count.
// Idle workers block on a condition variable (they never spin).
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace qkv {

class ThreadPool {
  public:
    // `threads` includes the calling thread; 1 runs everything inline.
    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return static_cast<int>(m_workers.size()) + 1; }
    // The number of chunks parallelFor() makes for `count` items.
    int chunks(int count) const;
    // Runs fn(chunk, begin, end) over [0, count) split into chunks(count) pieces, the caller
    // taking chunk 0; returns when every chunk is done. fn must not throw.
    void parallelFor(int count, const std::function<void(int chunk, int begin, int end)>& fn);
    // Runs fn(item, thread) for every item in [0, count), each thread (0 the caller, then the
    // workers) taking the next item as it finishes its last, so that a thread slowed by other
    // work on its core takes fewer. Only for items whose results do not depend on which thread
    // computes them, or in which order. fn must not throw.
    void forEachItem(int count, const std::function<void(int item, int thread)>& fn);

  private:
    void workerLoop(int index);

    std::vector<std::thread> m_workers;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    const std::function<void(int, int, int)>* m_task = nullptr;
    int m_count = 0;
    int m_chunks = 0;
    int m_pending = 0;
    unsigned m_generation = 0;
    bool m_stop = false;
};

// [begin, end) of chunk `chunk` when `count` items are split into `chunks` near-equal pieces.
inline void chunkRange(int count, int chunks, int chunk, int& begin, int& end) {
    begin = static_cast<int>(static_cast<long long>(count) * chunk / chunks);
    end = static_cast<int>(static_cast<long long>(count) * (chunk + 1) / chunks);
}

}  // namespace qkv
