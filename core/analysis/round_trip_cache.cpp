#include "core/analysis/round_trip_cache.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/analysis/ov_circuit.h"
#include "core/analysis/view_digest.h"
#include "core/util/atomic_file.h"
#include "core/util/environment.h"
#include "core/util/error.h"
#include "core/util/sha256.h"

namespace qkv {
namespace {

constexpr char kMagic[8] = {'Q', 'K', 'V', 'W', 'U', 'W', 'E', '1'};

// Each tensor's own digest (the embedding and the output head, 1 GB each on an 8B model, on
// threads of their own), then one digest of those.
std::string entryKey(const ModelWeights& w) {
    const std::array<const MatrixView*, 4> views = {&w.tokenEmbedding, &w.lmHead.weight,
                                                    &w.embeddingProjection.weight,
                                                    &w.outputProjection.weight};
    std::array<std::string, 4> parts;
    std::array<std::exception_ptr, 4> failures;
    std::vector<std::thread> hashing;
    for (std::size_t i = 0; i < views.size(); ++i) {
        const MatrixView& v = *views[i];
        if (v.empty())
            parts[i] = "-";
        else if (&v == &w.lmHead.weight && v.data == w.tokenEmbedding.data)
            parts[i] = "tied";  // the embedding's own bytes, hashed already
        else
            hashing.emplace_back([&v, &part = parts[i], &failure = failures[i]] {
                try {
                    Sha256 digest;
                    hashView(digest, v);
                    part = digest.hex();
                } catch (...) {
                    failure = std::current_exception();
                }
            });
    }
    for (std::thread& t : hashing) t.join();
    for (const std::exception_ptr& failure : failures)
        if (failure) std::rethrow_exception(failure);
    Sha256 digest;
    digest.update("qkvlab W_U W_E v2;");
    for (const std::string& part : parts) digest.update(part + ";");
    return digest.hex();
}

// The key of each model this process has hashed, by Model::serial(): the head details ask for the
// product on every click, and hashing an 8B model's embeddings reads 2 GB.
std::string memoisedEntryKey(const Model& model) {
    static std::mutex mutex;
    static std::map<std::uint64_t, std::string> keys;
    {
        std::lock_guard lock(mutex);
        if (auto found = keys.find(model.serial()); found != keys.end()) return found->second;
    }
    std::string key = entryKey(model.weights());  // outside the lock: seconds for large models
    std::lock_guard lock(mutex);
    return keys.emplace(model.serial(), std::move(key)).first->second;
}

std::optional<Eigen::MatrixXd> readEntry(const std::filesystem::path& file, int d) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    char magic[8];
    std::int32_t width = 0;
    in.read(magic, sizeof magic);
    in.read(reinterpret_cast<char*>(&width), sizeof width);
    if (!in || std::memcmp(magic, kMagic, sizeof magic) != 0 || width != d) return std::nullopt;
    Eigen::MatrixXd m(d, d);
    in.read(reinterpret_cast<char*>(m.data()),
            static_cast<std::streamsize>(sizeof(double) * m.size()));
    if (!in || in.peek() != std::ifstream::traits_type::eof()) return std::nullopt;
    return m;
}

void writeEntry(const std::filesystem::path& file, const Eigen::MatrixXd& m) {
    try {
        std::filesystem::create_directories(file.parent_path());
        writeFileAtomically(file, [&](std::ostream& out) {
            const auto width = static_cast<std::int32_t>(m.rows());
            out.write(kMagic, sizeof kMagic);
            out.write(reinterpret_cast<const char*>(&width), sizeof width);
            out.write(reinterpret_cast<const char*>(m.data()),
                      static_cast<std::streamsize>(sizeof(double) * m.size()));
        });
    } catch (const std::exception&) {
        // Best effort (see the header): the result stands without its entry.
    }
}

}  // namespace

std::filesystem::path roundTripCacheFolder() {
    const std::filesystem::path base =
        environmentVariable("XDG_CACHE_HOME")
            ? std::filesystem::path(*environmentVariable("XDG_CACHE_HOME"))
            : std::filesystem::path(environmentVariable("HOME").value_or(".")) / ".cache";
    return base / "qkvlab" / "round-trip";
}

std::optional<Eigen::MatrixXd> cachedVocabularyRoundTrip(const Model& model, ThreadPool& pool,
                                                         const RoundTripCache& cache,
                                                         const Progress& progress,
                                                         const std::atomic<bool>* cancel) {
    const ModelWeights& w = model.weights();
    if (w.lmHead.weight.empty() || w.tokenEmbedding.empty()) return std::nullopt;
    const double width = w.tokenEmbedding.cols;
    if (2.0 * w.tokenEmbedding.rows * width * width < cache.minimumFlops)
        return vocabularyRoundTrip(model, pool, progress, cancel);
    const std::filesystem::path file = cache.folder / (memoisedEntryKey(model) + ".bin");
    const int d = model.architecture().dModel;
    if (auto stored = readEntry(file, d)) return stored;
    auto computed = vocabularyRoundTrip(model, pool, progress, cancel);
    if (computed && computed->rows() == d) writeEntry(file, *computed);
    return computed;
}

}  // namespace qkv
