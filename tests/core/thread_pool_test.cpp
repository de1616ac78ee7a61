// The thread pool's two ways of sharing work: parallelFor's fixed chunks, whose boundaries depend
// only on the count and the pool's size, and forEachItem, where each thread takes the next item.
// Both must run every item exactly once, for any count and pool size, and return only when all
// are done.
#include "core/util/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace qkv {
namespace {

TEST(ThreadPool, ParallelForCoversEveryItemOnceInChunksThatDependOnlyOnTheCount) {
    for (int threads : {1, 2, 3, 5})
        for (int count : {0, 1, 2, 7, 64, 1000}) {
            SCOPED_TRACE(testing::Message() << threads << " threads, " << count << " items");
            ThreadPool pool(threads);
            std::vector<std::atomic<int>> runs(count);
            std::vector<int> chunkOf(count, -1);
            pool.parallelFor(count, [&](int chunk, int begin, int end) {
                for (int i = begin; i < end; ++i) {
                    runs[i].fetch_add(1);
                    chunkOf[i] = chunk;
                }
            });
            for (int i = 0; i < count; ++i) {
                EXPECT_EQ(runs[i].load(), 1) << "item " << i;
                int begin, end;
                chunkRange(count, pool.chunks(count), chunkOf[i], begin, end);
                EXPECT_TRUE(begin <= i && i < end) << "item " << i;
            }
        }
}

TEST(ThreadPool, ForEachItemRunsEveryItemOnceOnAThreadOfThePoolAndReturnsWhenAllAreDone) {
    for (int threads : {1, 2, 3, 5})
        for (int count : {0, 1, 2, 7, 64, 1000}) {
            SCOPED_TRACE(testing::Message() << threads << " threads, " << count << " items");
            ThreadPool pool(threads);
            std::vector<std::atomic<int>> runs(count);
            std::atomic<bool> threadOutOfRange{false};
            pool.forEachItem(count, [&](int item, int thread) {
                runs[item].fetch_add(1);
                if (thread < 0 || thread >= threads) threadOutOfRange = true;
            });
            for (int i = 0; i < count; ++i) EXPECT_EQ(runs[i].load(), 1) << "item " << i;
            EXPECT_FALSE(threadOutOfRange.load());
        }
}

TEST(ThreadPool, ForEachItemGivesASlowThreadsShareToTheOthers) {
    // Item 0 cannot finish before every other item has run. With fixed halves the thread holding
    // it would have to run the rest of its half first and never would (the test would hang until
    // ctest's timeout); taking items one at a time, the other thread runs them all.
    ThreadPool pool(2);
    constexpr int kCount = 100;
    std::atomic<int> done{0};
    pool.forEachItem(kCount, [&](int item, int) {
        if (item == 0)
            while (done.load() < kCount - 1) std::this_thread::yield();
        done.fetch_add(1);
    });
    EXPECT_EQ(done.load(), kCount);
}

}  // namespace
}  // namespace qkv
