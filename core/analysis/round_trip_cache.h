#pragma once
// W_U W_E (ov_circuit.h), the OV copying score's one d_model x d_model product over the
// vocabulary, kept on disk so that a model pays it once: 4.3 TFLOP for Llama-3-8B, minutes on a
// laptop, where reading it back takes milliseconds. Entries are keyed by the SHA-256 of what the
// product is made of (the embedding's and the unembedding's dtype, shape and bytes, and OPT's
// projections), so another checkpoint of the same layout never reads this one's; hashing reads
// those tensors once (about a second for an 8B model). Products too small to be worth a file are
// computed every time.
#include <Eigen/Core>
#include <atomic>
#include <filesystem>
#include <optional>

#include "core/model/model.h"
#include "core/util/progress.h"
#include "core/util/thread_pool.h"

namespace qkv {

// $XDG_CACHE_HOME/qkvlab/round-trip, else ~/.cache/qkvlab/round-trip.
std::filesystem::path roundTripCacheFolder();

struct RoundTripCache {
    std::filesystem::path folder = roundTripCacheFolder();
    // Below 2 · vocab · d_model² flops (GPT-2 small's is 59 GFLOP, half a second) the product is
    // computed, not cached.
    double minimumFlops = 1e11;
};

// vocabularyRoundTrip(model, pool, progress, cancel), from the cache when an entry for the same
// tensors is there (a damaged entry is recomputed and replaced). Writing the entry is best
// effort: a read-only or full disk costs the next analysis the product again, never this one
// its result.
std::optional<Eigen::MatrixXd> cachedVocabularyRoundTrip(const Model& model, ThreadPool& pool,
                                                         const RoundTripCache& cache = {},
                                                         const Progress& progress = {},
                                                         const std::atomic<bool>* cancel = nullptr);

}  // namespace qkv
