// The same input gives the same bits whatever else runs on the machine: the CPU backend splits
// work over its own pool in chunks fixed by the sizes and the pool's size (never by which threads
// are idle) and runs OpenBLAS single-threaded inside each chunk. A forward and a weight analysis
// computed while busy neighbours take every core are compared bit for bit with the same ones
// computed before them.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "core/analysis/head_metrics.h"
#include "core/model/forward.h"
#include "tests/support/fixture_writer.h"

namespace qkv {
namespace {

// Threads that keep every core busy until destroyed.
class BusyNeighbours {
  public:
    BusyNeighbours() {
        const unsigned count = 2 * std::max(1u, std::thread::hardware_concurrency());
        for (unsigned i = 0; i < count; ++i)
            m_threads.emplace_back([this] {
                volatile double x = 1.0;
                while (!m_stop.load(std::memory_order_relaxed)) x = x * 1.0000001 + 1e-9;
            });
    }
    ~BusyNeighbours() {
        m_stop = true;
        for (auto& t : m_threads) t.join();
    }

  private:
    std::atomic<bool> m_stop{false};
    std::vector<std::thread> m_threads;
};

bool sameBits(const RowMatrixXf& a, const RowMatrixXf& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), sizeof(float) * a.size()) == 0;
}

// Everything a forward gives: every head's scores and probabilities, q, k, v and the logits.
void expectSameBits(const ForwardResult& a, const ForwardResult& b) {
    ASSERT_EQ(a.trace.layerCount(), b.trace.layerCount());
    for (int l = 0; l < a.trace.layerCount(); ++l) {
        const LayerTrace &x = a.trace.layers()[l], &y = b.trace.layers()[l];
        EXPECT_TRUE(sameBits(x.query, y.query)) << "layer " << l;
        EXPECT_TRUE(sameBits(x.key, y.key)) << "layer " << l;
        EXPECT_TRUE(sameBits(x.value, y.value)) << "layer " << l;
        for (int h = 0; h < a.trace.headCount(l); ++h) {
            EXPECT_TRUE(sameBits(x.scores[h], y.scores[h])) << "layer " << l << " head " << h;
            EXPECT_TRUE(sameBits(x.probabilities[h], y.probabilities[h]))
                << "layer " << l << " head " << h;
        }
    }
    EXPECT_TRUE(sameBits(a.logits, b.logits));
}

TEST(Determinism, ForwardAndAnalysisGiveTheSameBitsUnderABusyNeighbour) {
    // Wide enough that every GEMM is split over the pool (tiles of the longer side of C).
    test::TempDir dir;
    test::writeTinyLlama(
        dir.path(),
        {.layers = 2, .heads = 8, .kvHeads = 4, .dModel = 256, .vocab = 700, .context = 128});
    const auto model = Model::open(dir.path());
    auto backend = createCpuBackend();
    const ForwardPass pass(*model, *backend);
    ForwardRequest request;
    for (int i = 0; i < 96; ++i)
        request.ids.push_back((i * 37 + 11) % model->architecture().vocabSize);
    request.logits = LogitsMode::AllPositions;
    const ForwardResult quiet = pass.run(request);
    const ModelMetrics quietMetrics = analyzeModel(*model, WConfiguration{});

    const BusyNeighbours neighbours;
    for (int run = 0; run < 3; ++run) {
        SCOPED_TRACE(run);
        expectSameBits(pass.run(request), quiet);
        const ModelMetrics busy = analyzeModel(*model, WConfiguration{});
        ASSERT_EQ(busy.layers.size(), quietMetrics.layers.size());
        for (size_t l = 0; l < busy.layers.size(); ++l) {
            EXPECT_EQ(busy.layers[l].wqkSymmetry, quietMetrics.layers[l].wqkSymmetry);
            for (size_t h = 0; h < busy.layers[l].heads.size(); ++h) {
                const HeadMetrics &x = busy.layers[l].heads[h],
                                  &y = quietMetrics.layers[l].heads[h];
                EXPECT_EQ(x.wqkSymmetry, y.wqkSymmetry);
                EXPECT_EQ(x.wqkSingularValues, y.wqkSingularValues);
                EXPECT_EQ(x.qkSimilarity, y.qkSimilarity);
                EXPECT_EQ(x.kvSimilarity, y.kvSimilarity);
            }
        }
    }
}

}  // namespace
}  // namespace qkv
