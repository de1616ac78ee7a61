#include "core/train/loss_ops.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/train/fast_math.h"

namespace qkv::train {

template <typename T>
double crossEntropyForward(ThreadPool& pool, const T* logits, const int* targets, int rows,
                           int vocab, T* logSumExp) {
    std::vector<double> partial(pool.chunks(rows), 0.0);
    pool.parallelFor(rows, [&](int chunk, int begin, int end) {
        double sum = 0.0;
        for (int r = begin; r < end; ++r) {
            const T* row = logits + static_cast<long>(r) * vocab;
            const T maxValue = *std::max_element(row, row + vocab);
            double total = 0.0;
            for (int j = 0; j < vocab; ++j) total += expOf(row[j] - maxValue);
            const double lse = maxValue + std::log(total);
            logSumExp[r] = static_cast<T>(lse);
            sum += lse - row[targets[r]];
        }
        partial[chunk] = sum;
    });
    double sum = 0.0;
    for (double s : partial) sum += s;
    return sum;
}

template <typename T>
void crossEntropyBackward(ThreadPool& pool, const T* logits, const int* targets, const T* logSumExp,
                          int rows, int vocab, T scale, T* dlogits) {
    pool.parallelFor(rows, [&](int, int begin, int end) {
        for (int r = begin; r < end; ++r) {
            const T* row = logits + static_cast<long>(r) * vocab;
            T* out = dlogits + static_cast<long>(r) * vocab;
            for (int j = 0; j < vocab; ++j) out[j] = expOf(row[j] - logSumExp[r]) * scale;
            out[targets[r]] -= scale;
        }
    });
}

template double crossEntropyForward<float>(ThreadPool&, const float*, const int*, int, int, float*);
template double crossEntropyForward<double>(ThreadPool&, const double*, const int*, int, int,
                                            double*);
template void crossEntropyBackward<float>(ThreadPool&, const float*, const int*, const float*, int,
                                          int, float, float*);
template void crossEntropyBackward<double>(ThreadPool&, const double*, const int*, const double*,
                                           int, int, double, double*);

}  // namespace qkv::train
