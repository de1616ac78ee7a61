// Backend::forEachItem, by which a mixture's experts run at once on the CPU (one per thread, each
// on a single-threaded backend of its own): every item runs once, what an item computes on its
// backend is the backend's own kind of tensor, read by the calling backend, with the values a
// one-after-another run gives; an item's failure reaches the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "core/backend/backend.h"
#include "core/util/error.h"

namespace qkv {
namespace {

// A CPU backend of `threads` threads; later ones use every core again, the default.
std::unique_ptr<Backend> cpuBackendOf(int threads) {
    setCpuBackendThreads(threads);
    auto backend = createCpuBackend();
    setCpuBackendThreads(static_cast<int>(std::thread::hardware_concurrency()));
    return backend;
}

// Item i: rows {i, i + 1} of a 40 x 8 input, times an 8 x 8 weight, on the item's backend.
std::vector<std::vector<float>> itemProducts(int threads) {
    auto backend = cpuBackendOf(threads);
    std::vector<float> input(40 * 8), weight(8 * 8);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = 0.25f * static_cast<float>(i % 13);
    for (std::size_t i = 0; i < weight.size(); ++i) weight[i] = 0.5f - 0.125f * (i % 7);
    auto x = backend->upload(input.data(), 40, 8);
    auto w = backend->upload(weight.data(), 8, 8);
    constexpr int kItems = 39;
    std::vector<std::unique_ptr<Tensor>> outputs(kItems);
    std::vector<std::atomic<int>> runs(kItems);
    backend->forEachItem(kItems, [&](Backend& b, int i) {
        runs[i].fetch_add(1);
        auto rows = b.create(2, 8);
        b.gatherRows(*x, {i, i + 1}, *rows);
        outputs[i] = b.create(2, 8);
        b.linear(*rows, *w, nullptr, *outputs[i]);
    });
    std::vector<std::vector<float>> products;
    for (int i = 0; i < kItems; ++i) {
        EXPECT_EQ(runs[i].load(), 1) << "item " << i;
        products.emplace_back(16);
        backend->download(*outputs[i], products.back().data());  // the calling backend reads it
    }
    return products;
}

TEST(BackendItems, EachItemRunsOnceAndGivesWhatOneAfterAnotherGives) {
    const auto oneThread = itemProducts(1);
    const auto threeThreads = itemProducts(3);
    EXPECT_EQ(oneThread, threeThreads);  // the same operations on the same values: the same bits
}

TEST(BackendItems, AnItemsFailureReachesTheCaller) {
    auto backend = cpuBackendOf(2);
    std::atomic<int> ran{0};
    EXPECT_THROW(backend->forEachItem(50,
                                      [&](Backend&, int i) {
                                          ran.fetch_add(1);
                                          if (i == 3) throw Error("item 3 failed");
                                      }),
                 Error);
    EXPECT_LE(ran.load(), 50);
}

}  // namespace
}  // namespace qkv
