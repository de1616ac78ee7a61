// GGUF files (llama.cpp's converter and llama-quantize, shared/gguf): every file of every folder
// opens from its metadata alone and computes every head and the logits as Hugging Face does on
// the weights dequantised from it; malformed files are refused with one line naming the fault.
#include "core/io/gguf.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/io/gguf_writer.h"
#include "core/model/forward.h"
#include "core/model/gguf_checkpoint.h"
#include "core/model/gguf_undo.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"
#include "tests/support/shared_models.h"

namespace qkv {
namespace {

// As ForwardReference: the references' float32-vs-float64 gap is below 1e-5 (PROVENANCE-gguf),
// and their q/k weights are ×8, so attention is sharp; the rest is float32 rounding.
constexpr double kAttentionTolerance = 1e-4;
constexpr double kLogitTolerance = 5e-4;

struct GgufCase {
    std::string folder;  // llama-gguf-tiny ...
    std::string type;    // F32, Q4_K_M ...
};

std::vector<GgufCase> ggufCases() {
    std::vector<GgufCase> cases;
    for (const char* folder : {"llama-gguf-tiny", "qwen2-gguf-tiny", "qwen3-gguf-tiny",
                               "gemma2-gguf-tiny", "phi3-gguf-tiny"})
        for (const char* type :
             {"F32", "F16", "Q8_0", "Q4_0", "Q4_K_M", "Q5_K_M", "Q6_K", "IQ4_XS"})
            cases.push_back({folder, type});
    // DeepSeek-V3 (llama.cpp's deepseek2): latent attention with kv_b_proj split into k_b and
    // v_b, the sigmoid router with its score bias; the converter's own types only.
    for (const char* type : {"F16", "Q8_0", "Q4_K_M"})
        cases.push_back({"deepseek_v3-gguf-tiny", type});
    // LFM2 (lfm2): short convolutions beside attention, each layer's kind from its key/value
    // head count (0: a convolution), the final norm named token_embd_norm.
    for (const char* type : {"F16", "Q8_0", "Q4_K_M"}) cases.push_back({"lfm2-gguf-tiny", type});
    // Granite 4.0-H (granitehybrid): Mamba-2 layers (A stored as -exp(A_log), D and the norm
    // reshaped) beside NoPE attention with interleaved q/k rows, experts with gate and up apart.
    for (const char* type : {"F16", "Q8_0", "Q4_K_M"})
        cases.push_back({"granitemoehybrid-gguf-tiny", type});
    // Qwen3.5 (qwen35): Gated DeltaNet layers whose value heads llama.cpp reordered (gathered
    // back after each product, out_proj's inputs before it), norms stored as 1 + w but the gated
    // one, beside gated full attention.
    for (const char* type : {"F16", "Q8_0", "Q4_K_M"}) cases.push_back({"qwen3_5-gguf-tiny", type});
    // GLM-4.5 (glm4moe): rotary on half of each head, q/k/v biases, DeepSeek-V3's experts after
    // a dense first layer.
    for (const char* type : {"F16", "Q8_0", "Q4_K_M"})
        cases.push_back({"glm4_moe-gguf-tiny", type});
    return cases;
}

class GgufReference : public testing::TestWithParam<GgufCase> {};

TEST_P(GgufReference, AttentionAndLogitsMatchTransformersOnTheDecodedWeights) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    const std::filesystem::path folder = shared / "gguf" / GetParam().folder;
    std::ifstream in(folder / "gguf_reference.json");
    ASSERT_TRUE(in) << folder;
    const nlohmann::json entry = nlohmann::json::parse(in)["by_quant_type"][GetParam().type];
    const test::ModelReference reference = test::parseReference(entry["hf_reference"]);
    auto model = Model::open(folder / entry["file"].get<std::string>());
    test::expectOriginalResults(*model, reference, kAttentionTolerance, kLogitTolerance);
}

INSTANTIATE_TEST_SUITE_P(SharedGguf, GgufReference, testing::ValuesIn(ggufCases()),
                         [](const testing::TestParamInfo<GgufCase>& info) {
                             std::string name = info.param.folder + "_" + info.param.type;
                             for (char& ch : name)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return name;
                         });

// Every folder of shared/gguf is compared above, or its family is pending and each of its files
// is refused with the clear error a user sees (tests/support/shared_models.h).
TEST(GgufCoverage, EverySharedFolderIsComparedOrRefusedByName) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    std::set<std::string> compared;
    for (const GgufCase& c : ggufCases()) compared.insert(c.folder);
    for (const std::string& name : test::sharedGgufNames(shared)) {
        const std::optional<std::string> refusal = test::pendingGgufRefusal(name);
        EXPECT_NE(compared.count(name) == 1, refusal.has_value())
            << name
            << (refusal ? " is compared: remove its family from the pending list"
                        : " is neither compared nor pending");
        if (!refusal) continue;
        for (const auto& file : std::filesystem::directory_iterator(shared / "gguf" / name)) {
            if (file.path().extension() != ".gguf") continue;
            try {
                Model::open(file.path());
                ADD_FAILURE() << file.path() << " opened but its family is pending";
            } catch (const Error& e) {
                EXPECT_NE(std::string(e.what()).find(*refusal), std::string::npos)
                    << file.path() << ": expected \"" << *refusal << "\" in: " << e.what();
            }
        }
    }
}

// A GGUF file built byte by byte: header, metadata, tensor infos, padding, data.
class GgufBytes {
  public:
    explicit GgufBytes(std::uint32_t version = 3) {
        put<std::uint32_t>(0x46554747);
        put(version);
    }
    template <typename T>
    void put(T value) {
        const auto* p = reinterpret_cast<const std::uint8_t*>(&value);
        bytes.insert(bytes.end(), p, p + sizeof value);
    }
    void putString(const std::string& s) {
        put<std::uint64_t>(s.size());
        bytes.insert(bytes.end(), s.begin(), s.end());
    }
    // One F32 tensor "t" of `count` elements at `offset`, one uint32 metadata entry.
    static std::vector<std::uint8_t> oneTensor(std::uint64_t count, std::uint64_t offset,
                                               std::uint32_t type = 0, std::size_t data = 64) {
        GgufBytes g;
        g.put<std::uint64_t>(1);
        g.put<std::uint64_t>(1);
        g.putString("general.alignment");
        g.put<std::uint32_t>(4);
        g.put<std::uint32_t>(32);
        g.putString("t");
        g.put<std::uint32_t>(1);
        g.put<std::uint64_t>(count);
        g.put<std::uint32_t>(type);
        g.put<std::uint64_t>(offset);
        while (g.bytes.size() % 32) g.bytes.push_back(0);
        g.bytes.resize(g.bytes.size() + data);
        return g.bytes;
    }
    std::vector<std::uint8_t> bytes;
};

std::string parseError(const std::vector<std::uint8_t>& bytes) {
    try {
        parseGguf(bytes.data(), bytes.size(), "x.gguf");
        return "(parsed)";
    } catch (const Error& e) {
        return e.what();
    }
}

TEST(GgufParse, AWellFormedTensorIsFoundWhereItsOffsetSays) {
    const auto bytes = GgufBytes::oneTensor(8, 32);
    const GgufTable table = parseGguf(bytes.data(), bytes.size(), "x.gguf");
    ASSERT_EQ(table.tensors.size(), 1u);
    const GgufTensor& t = table.tensors.at("t");
    EXPECT_EQ(t.byteSize, 32u);
    EXPECT_EQ(t.data, bytes.data() + bytes.size() - 64 + 32);
    EXPECT_EQ(std::get<std::uint64_t>(table.metadata.at("general.alignment").value), 32u);
}

TEST(GgufParse, MalformedFilesAreRefusedNamingTheFault) {
    EXPECT_NE(parseError({'G', 'G', 'U'}).find("does not start with \"GGUF\""), std::string::npos);
    GgufBytes v1(1);
    EXPECT_NE(parseError(v1.bytes).find("version 1"), std::string::npos);
    auto truncated = GgufBytes::oneTensor(8, 32);
    truncated.resize(40);
    EXPECT_NE(parseError(truncated).find("truncated at byte"), std::string::npos);
    EXPECT_NE(parseError(GgufBytes::oneTensor(8, 64)).find("past the end"), std::string::npos);
    EXPECT_NE(parseError(GgufBytes::oneTensor(8, 4)).find("not aligned"), std::string::npos);
    EXPECT_NE(parseError(GgufBytes::oneTensor(8, 0, 99)).find("unknown ggml type 99"),
              std::string::npos);
    EXPECT_NE(parseError(GgufBytes::oneTensor(33, 0, 2)).find("a shape its type cannot hold"),
              std::string::npos);  // Q4_0 rows are whole blocks of 32
    GgufBytes badValue;
    badValue.put<std::uint64_t>(0);
    badValue.put<std::uint64_t>(1);
    badValue.putString("k");
    badValue.put<std::uint32_t>(13);
    EXPECT_NE(parseError(badValue.bytes).find("unknown metadata value type 13"), std::string::npos);
    GgufBytes huge;
    huge.put<std::uint64_t>(std::uint64_t{1} << 40);
    EXPECT_NE(parseError(huge.bytes).find("too large"), std::string::npos);
}

// The error opening a copy of `source` whose metadata key `from` is renamed `to` (as long).
std::string openingErrorWithKeyRenamed(const std::filesystem::path& source, const std::string& from,
                                       const std::string& to) {
    const test::TempDir dir;
    std::ifstream in(source, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto at = std::search(bytes.begin(), bytes.end(), from.begin(), from.end());
    EXPECT_NE(at, bytes.end()) << from;
    if (at == bytes.end() || from.size() != to.size()) return {};
    std::copy(to.begin(), to.end(), at);
    const auto file = dir.path() / "broken.gguf";
    std::ofstream(file, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return test::openingError(file);
}

TEST(GgufOpen, AnArchitectureNotReadIsRefusedByName) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    // The block count is then unknown to the llama reader.
    const std::string error =
        openingErrorWithKeyRenamed(shared / "gguf" / "llama-gguf-tiny" / "llama-gguf-tiny-F32.gguf",
                                   "llama.block_count", "xxxxx.block_count");
    EXPECT_NE(error.find("llama.block_count is missing"), std::string::npos) << error;
}

// LFM2's layer kinds come from each layer's key/value head count: without the list, the file is
// refused naming it.
TEST(GgufOpen, Lfm2WithoutItsLayersKeyValueHeadsIsRefused) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    const std::string error =
        openingErrorWithKeyRenamed(shared / "gguf" / "lfm2-gguf-tiny" / "lfm2-gguf-tiny-F16.gguf",
                                   "lfm2.attention.head_count_kv", "lfm2.attention.head_count_xx");
    EXPECT_NE(error.find("lfm2.attention.head_count_kv must list each layer's key/value heads"),
              std::string::npos)
        << error;
}

// Granite's Mamba heads are ssm.time_step_rank: a file without it is refused naming it.
TEST(GgufOpen, GraniteHybridWithoutItsMambaHeadCountIsRefused) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    const std::string error = openingErrorWithKeyRenamed(
        shared / "gguf" / "granitemoehybrid-gguf-tiny" / "granitemoehybrid-gguf-tiny-F16.gguf",
        "granitehybrid.ssm.time_step_rank", "granitehybrid.ssm.time_step_xxxx");
    EXPECT_NE(error.find("granitehybrid.ssm.time_step_rank is missing"), std::string::npos)
        << error;
}

// The converter stores A = -exp(A_log): A_log is its log negated, and a value that is not
// negative cannot have come from it.
TEST(GgufUndo, AStoredAsMinusExpIsReadBackAndAPositiveOneIsRefused) {
    std::vector<float> stored = {-std::exp(0.25f), -1.0f};
    TensorInfo t;
    t.name = "model.layers.0.mamba.A_log";
    t.shape = {1, 2};
    t.data = reinterpret_cast<const std::uint8_t*>(stored.data());
    t.byteSize = stored.size() * sizeof(float);
    GgufDerived derived;
    logOfNegated(t, derived);
    EXPECT_EQ(t.shape, (std::vector<std::int64_t>{2}));
    const std::vector<float> aLog = ggufFloats(t);
    EXPECT_NEAR(aLog[0], 0.25f, 1e-7f);
    EXPECT_EQ(aLog[1], 0.0f);
    stored[1] = 0.5f;
    t.data = reinterpret_cast<const std::uint8_t*>(stored.data());
    t.shape = {2};
    EXPECT_THROW(logOfNegated(t, derived), Error);
}

// Llama's W_Q and W_K rows are reordered per head: a head count that does not divide the rows
// into heads of an even width is refused at once (the fuzzer's 1-row query of 4,227,858,430 heads
// had spun through every head for 16 s).
TEST(GgufOpen, QueryRowsThatAreNotWholeHeadsAreRefused) {
    const test::TempDir dir;
    GgufWriter gguf;
    gguf.addString("general.architecture", "llama");
    gguf.addUint32("llama.block_count", 1);
    gguf.addUint32("llama.embedding_length", 8);
    gguf.addUint32("llama.feed_forward_length", 8);
    gguf.addUint32("llama.attention.head_count", 4227858430u);
    gguf.addTensor("token_embd.weight", {8, 4}, std::vector<float>(32, 0.0f));
    gguf.addTensor("blk.0.attn_q.weight", {8, 1}, std::vector<float>(8, 0.0f));
    gguf.write(dir.path() / "m.gguf");
    try {
        openGgufCheckpoint(dir.path() / "m.gguf");
        ADD_FAILURE() << "opened";
    } catch (const Error& e) {
        EXPECT_NE(
            std::string(e.what()).find("its 1 rows are not 4227858430 heads of an even width"),
            std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace qkv

namespace qkv {
namespace {

// A split model (gguf-split's NAME-0000i-of-0000N.gguf): the F32 llama file's metadata in the
// first shard, its tensors dealt between two; any shard opens the whole model, which computes
// what the single file does, bit for bit. A missing shard is named.
TEST(GgufSplit, AnyShardOpensTheWholeModel) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    const auto source = shared / "gguf" / "llama-gguf-tiny" / "llama-gguf-tiny-F32.gguf";
    const GgufFile file(source);
    GgufWriter first, second;
    for (const auto& [key, value] : file.table().metadata) {
        if (key.rfind("tokenizer.", 0) == 0) continue;  // not needed here
        if (const auto* s = std::get_if<std::string>(&value.value)) first.addString(key, *s);
        if (const auto* u = std::get_if<std::uint64_t>(&value.value))
            first.addUint32(key, static_cast<std::uint32_t>(*u));
        if (const auto* d = std::get_if<double>(&value.value))
            first.addFloat32(key, static_cast<float>(*d));
    }
    int i = 0;
    for (const auto& [name, t] : file.table().tensors) {
        const auto* values = reinterpret_cast<const float*>(t.data);
        (i++ % 2 ? second : first)
            .addTensor(name, t.ne, std::vector<float>(values, values + t.elementCount()));
    }
    const test::TempDir dir;
    first.write(dir.path() / "tiny-00001-of-00002.gguf");
    second.write(dir.path() / "tiny-00002-of-00002.gguf");
    ForwardRequest request;
    request.ids = {1, 5, 900, 33, 17};
    auto cpu = createCpuBackend();
    const auto whole = Model::open(source);
    const auto split = Model::open(dir.path() / "tiny-00002-of-00002.gguf");
    const ForwardResult a = ForwardPass(*whole, *cpu).run(request);
    const ForwardResult b = ForwardPass(*split, *cpu).run(request);
    EXPECT_EQ(a.logits, b.logits);
    EXPECT_EQ(a.trace.probabilities(1, 3), b.trace.probabilities(1, 3));
    std::filesystem::remove(dir.path() / "tiny-00001-of-00002.gguf");
    try {
        Model::open(dir.path() / "tiny-00002-of-00002.gguf");
        ADD_FAILURE() << "opened";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("tiny-00001-of-00002.gguf: this shard"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace qkv
