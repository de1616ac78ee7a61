// Resource bounds with clear errors: weights kept compact (only what must be widened needs
// memory, and is refused by name when it would not fit), a forward
// whose attention capture would not fit, and a weights file truncated, rewritten or replaced
// while the model is open (reading its mapping would raise SIGBUS).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "core/io/safetensors.h"
#include "core/model/forward.h"
#include "core/util/half.h"
#include "core/util/memory.h"
#include "tests/support/fixture_writer.h"

namespace qkv {
namespace {

using test::TempDir;

// Sets the process's memory budget for one test.
class MemoryBudget {
  public:
    explicit MemoryBudget(std::uint64_t bytes) { setMemoryBudget(bytes); }
    ~MemoryBudget() { setMemoryBudget(std::nullopt); }
};

std::string messageOf(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected a qkv::Error";
    return {};
}

void expectContains(const std::string& message, const std::vector<std::string>& fragments) {
    for (const auto& fragment : fragments)
        EXPECT_NE(message.find(fragment), std::string::npos)
            << "message '" << message << "' lacks '" << fragment << "'";
}

// The tiny GPT-2 with every tensor stored as F16, as many Hub checkpoints are.
void writeTinyGpt2F16(const std::filesystem::path& dir, const test::TinyModelSpec& spec) {
    test::writeTinyGpt2(dir, spec);
    nlohmann::json header = nlohmann::json::object();
    std::vector<std::uint8_t> data;
    for (const auto& [name, tensor] : test::tinyGpt2Tensors(spec)) {
        const std::size_t begin = data.size();
        for (float v : tensor.values) {
            const std::uint16_t h = floatToF16(v);
            data.push_back(static_cast<std::uint8_t>(h & 0xFF));
            data.push_back(static_cast<std::uint8_t>(h >> 8));
        }
        header[name] = {
            {"dtype", "F16"}, {"shape", tensor.shape}, {"data_offsets", {begin, data.size()}}};
    }
    test::writeRawSafetensors(dir / "model.safetensors", header.dump(), data);
}

ForwardRequest requestOf(int tokens) {
    ForwardRequest request;
    for (int i = 0; i < tokens; ++i) request.ids.push_back(i % 50);
    return request;
}

TEST(MemoryLimits, FormatsSizesInDecimalUnits) {
    EXPECT_EQ(formatBytes(512), "512 bytes");
    EXPECT_EQ(formatBytes(1500000), "1.5 MB");
    EXPECT_EQ(formatBytes(14200000000ull), "14.2 GB");
    EXPECT_EQ(formatBytes(999960), "1.0 MB");
}

TEST(MemoryLimits, AvailableMemoryIsKnownAndBudgetCapsIt) {
    const auto available = availableMemory();
    ASSERT_TRUE(available.has_value()) << "/proc/meminfo should say MemAvailable";
    EXPECT_GT(*available, 0u);
    MemoryBudget budget(12345);
    EXPECT_EQ(availableMemory(), 12345u);
    expectContains(
        messageOf([] { requireMemory(20000, "the export", "as PNG", "pick fewer heads"); }),
        {"the export needs 20.0 kB as PNG; 12.3 kB of memory is available (pick fewer heads)"});
    EXPECT_NO_THROW(requireMemory(12345, "anything"));
}

// Matrices stay F16 in the mapping; only the vectors (biases, norm scales) become float32. A
// budget below the file's own size, far below its float32 widening, opens and runs the model.
TEST(MemoryLimits, HalfPrecisionModelKeepsItsMatricesCompact) {
    TempDir dir;
    writeTinyGpt2F16(dir.path(), {});
    const std::uint64_t fileBytes = TensorStore::openFolder(dir.path())->totalBytes();
    std::unique_ptr<Model> model;
    {
        MemoryBudget budget(fileBytes / 2);
        model = Model::open(dir.path());
    }
    const LayerWeights& layer = model->weights().layers[0];
    for (const MatrixView* w :
         {&layer.query.weight, &layer.key.weight, &layer.value.weight, &layer.output.weight,
          &layer.mlpIn.weight, &layer.mlpOut.weight, &model->weights().tokenEmbedding})
        EXPECT_EQ(w->type, ElementType::F16);
    auto backend = createCpuBackend();
    EXPECT_NO_THROW(ForwardPass(*model, *backend).run(requestOf(8)));
}

// A tensor that must be widened (here a vector, under a budget too small for it) is refused
// with its name and the sizes.
TEST(MemoryLimits, WideningThatWouldNotFitIsRefusedNamingTheTensor) {
    TempDir dir;
    writeTinyGpt2F16(dir.path(), {});
    MemoryBudget budget(16);
    expectContains(
        messageOf([&] { Model::open(dir.path()); }),
        {"model.safetensors: tensor '", "needs", "as float32", "of memory is available"});
}

TEST(MemoryLimits, Float32ModelStaysMappedAndNeedsNoConversionMemory) {
    TempDir dir;
    test::writeTinyGpt2(dir.path());
    MemoryBudget budget(1);
    EXPECT_NO_THROW(Model::open(dir.path()));
}

TEST(MemoryLimits, ForwardWhoseCaptureWouldNotFitIsRefusedNamingTheSizes) {
    TempDir dir;
    test::writeTinyGpt2(dir.path());
    auto model = Model::open(dir.path());
    auto backend = createCpuBackend();
    ForwardPass forward(*model, *backend);
    ForwardRequest request = requestOf(16);
    const std::uint64_t needed = forwardMemoryBytes(model->architecture(), request);
    // 2 layers x 4 heads, scores and probabilities: 8 x 2 x 16² floats in the trace alone.
    EXPECT_GE(needed, 8u * 2 * 16 * 16 * 4);
    {
        MemoryBudget budget(needed - 1);
        expectContains(
            messageOf([&] { forward.run(request); }),
            {"a forward pass over 16 tokens needs " + formatBytes(needed),
             "8 heads' 16x16 matrices", "of memory is available", "capture one layer or one head"});
        // One head's capture is far smaller and fits.
        request.capture.layer = 1;
        request.capture.head = 2;
        EXPECT_LT(forwardMemoryBytes(model->architecture(), request), needed);
        EXPECT_NO_THROW(forward.run(request));
    }
}

class ChangedModelFile : public testing::Test {
  protected:
    void SetUp() override {
        test::writeTinyGpt2(m_dir.path());
        m_model = Model::open(m_dir.path());
        m_forward = std::make_unique<ForwardPass>(*m_model, *m_backend);
        ASSERT_NO_THROW(m_forward->run(requestOf(4)));
    }
    std::filesystem::path weights() const { return m_dir.path() / "model.safetensors"; }
    std::string runError() {
        return messageOf([&] { m_forward->run(requestOf(4)); });
    }

    TempDir m_dir;
    std::unique_ptr<Model> m_model;
    std::unique_ptr<Backend> m_backend = createCpuBackend();
    std::unique_ptr<ForwardPass> m_forward;
};

TEST_F(ChangedModelFile, TruncatedWhileOpenGivesAnErrorNotSigbus) {
    const auto size = std::filesystem::file_size(weights());
    std::filesystem::resize_file(weights(), 100);
    expectContains(runError(), {weights().string(), "changed on disk since it was opened",
                                "it was " + std::to_string(size) + " bytes, now 100", "reopen it"});
    EXPECT_THROW(m_model->checkUnchanged(), Error);
}

TEST_F(ChangedModelFile, RewrittenInPlaceGivesAnError) {
    struct timespec times[2] = {{0, UTIME_OMIT}, {1000000000, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, weights().c_str(), times, 0), 0);
    expectContains(runError(), {"changed on disk", "rewritten in place", "reopen it"});
}

TEST_F(ChangedModelFile, ReplacedOrDeletedGivesAnError) {
    const auto replacement = m_dir.path() / "new.safetensors";
    std::filesystem::copy_file(weights(), replacement);
    std::filesystem::rename(replacement, weights());
    expectContains(runError(), {"changed on disk", "replaced by another file", "reopen it"});
    std::filesystem::remove(weights());
    expectContains(runError(), {"changed on disk", "no longer there"});
}

TEST_F(ChangedModelFile, ReopeningAfterTheChangeWorks) {
    // A new file rather than a rewrite in place: timestamps are too coarse to tell a rewrite
    // within the same few milliseconds apart (the size check and the inode catch the rest).
    std::filesystem::remove(weights());
    test::writeTinyGpt2(m_dir.path(), {.seed = 11});
    EXPECT_THROW(m_forward->run(requestOf(4)), Error);
    auto reopened = Model::open(m_dir.path());
    ForwardPass forward(*reopened, *m_backend);
    EXPECT_NO_THROW(forward.run(requestOf(4)));
}

}  // namespace
}  // namespace qkv
