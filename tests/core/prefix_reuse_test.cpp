// Prefix reuse (ReusingForward) gives the whole forward's result on every shared causal model
// under every configuration, for edits at the end, in the middle and of the whole text; a
// bidirectional model keeps nothing. The tiny fixtures run without ../shared.
#include "core/model/prefix_reuse.h"

#include <gtest/gtest.h>

#include <iostream>

#include "core/model/applicable_configurations.h"
#include "core/model/model_family.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/prefix_reuse_check.h"
#include "tests/support/shared_assets.h"
#include "tests/support/shared_models.h"

namespace qkv {
namespace {

// The kept rows are bit-identical; the new rows come from products over fewer rows (one or two:
// matrix-vector products, where the whole forward uses GEMM), whose float32 sums are ordered
// differently, compounded over the layers. Relative to each matrix's largest value; the largest
// seen is 1.3e-5 (stories260K, shared-qk, unoptimised build), a wrong position or row is O(1).
constexpr double kTolerance = 5e-5;

struct Variant {
    const char* configuration;
    bool scaleOutside = false;
    bool maskSelf = false;
};

const Variant kVariants[] = {
    {"learned"},
    {"shared-qk"},
    {"tied-kv"},
    {"single-w"},
    {"sym-scores"},
    {"skew-scores"},
    {"learned", true},
    {"learned", false, true},
    {"q=K,k=Q,v=V"},
    {"scale-outside"},
    {"shared-qk-reformer"},
};

ForwardRequest requestFor(const Variant& v) {
    ForwardRequest request;
    request.config = WConfiguration::parse(v.configuration);
    request.config.scaleOutside |= v.scaleOutside;
    request.config.maskSelf |= v.maskSelf;
    request.logits = LogitsMode::AllPositions;
    return request;
}

// The app's request at long inputs: one head captured, q, k and v of its layer only, the last
// position's logits.
ForwardRequest appRequestAtLongInputs(const Architecture& c) {
    ForwardRequest request = requestFor(kVariants[0]);
    request.capture.layer = c.layers - 1;
    request.capture.head = 0;
    request.capture.allVectors = false;
    request.logits = LogitsMode::LastPosition;
    return request;
}

// Every variant with every head captured and every logit, then the app's request at long inputs.
double checkModel(const Model& model, Backend& backend, int tokens) {
    ForwardPass pass(model, backend);
    const auto edits = test::prefixEdits(tokens, model.architecture().vocabSize, 11);
    double worst = 0.0;
    for (const Variant& v : kVariants) {
        SCOPED_TRACE(v.configuration);
        // Latent attention defines fewer configurations (LatentAttention tests the refusal).
        if (!configurationApplies(model.architecture(), requestFor(v).config)) continue;
        worst = std::max(worst, test::checkPrefixReuse(pass, requestFor(v), edits, kTolerance));
    }
    const ForwardRequest oneHead = appRequestAtLongInputs(model.architecture());
    return std::max(worst, test::checkPrefixReuse(pass, oneHead, edits, kTolerance));
}

class PrefixReuseShared : public testing::TestWithParam<std::string> {};

TEST_P(PrefixReuseShared, EqualsTheWholeForward) {
    QKV_REQUIRE_SHARED(shared);
    auto model = Model::open(shared / "models" / GetParam());
    auto backend = createCpuBackend();
    const int tokens = std::min(model->architecture().contextLength, 24);
    const double worst = checkModel(*model, *backend, tokens);
    std::cout << "[ measure  ] " << GetParam() << ": largest relative difference " << worst << "\n";
}

// From config.json alone: this runs while every test process registers its tests, and opening
// each model (weights and tokenizer) there cost every process of the suites half a second.
std::vector<std::string> causalSharedModels() {
    std::vector<std::string> names;
    const auto shared = test::sharedDir();
    if (!shared) return {"(none)"};
    for (const std::string& name : test::supportedSharedModelNames(*shared)) {
        const Architecture c = loadArchitecture(*shared / "models" / name / "config.json");
        if (c.causal && !c.isEncoderDecoder()) names.push_back(name);
    }
    return names;
}

std::string safeName(const testing::TestParamInfo<std::string>& info) {
    std::string name = info.param;
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(CausalModels, PrefixReuseShared, testing::ValuesIn(causalSharedModels()),
                         safeName);

TEST(PrefixReuse, EqualsTheWholeForwardOnTheTinyFixtures) {
    test::TempDir gpt2, llama;
    test::writeTinyGpt2(gpt2.path(), {.context = 32});
    test::writeTinyLlama(llama.path(), {.kvHeads = 2, .context = 32});
    auto backend = createCpuBackend();
    for (const auto& folder : {gpt2.path(), llama.path()}) {
        auto model = Model::open(folder);
        checkModel(*model, *backend, 20);
    }
}

// LongRoPE rotates every position with the short factors up to original_max_position_embeddings
// (16 here) and with the long ones beyond: an input that crosses it computes whole, one that stays
// on the same side reuses its prefix. The results equal whole forwards either way.
TEST(PrefixReuse, LengthDependentRotaryKeepsNothingAcrossItsThreshold) {
    QKV_REQUIRE_SHARED(shared);
    auto model = Model::open(shared / "models" / "phi3longrope-random-tiny");
    ASSERT_EQ(model->architecture().rotary.scaling.type, RopeType::LongRope);
    auto backend = createCpuBackend();
    ForwardPass pass(*model, *backend);
    ReusingForward reusing(pass);
    ForwardRequest request;
    auto runWith = [&](int tokens) {
        request.ids.resize(tokens);
        for (int i = 0; i < tokens; ++i) request.ids[i] = 20 + 7 * i;
        const auto result = reusing.run(request);
        EXPECT_LE(test::worstRelativeDifference(*result, pass.run(request)), kTolerance);
        return reusing.reusedTokens();
    };
    runWith(10);
    EXPECT_EQ(runWith(12), 10);  // both short: the first 10 tokens are kept
    EXPECT_EQ(runWith(20), 0);   // short -> long
    EXPECT_EQ(runWith(24), 20);  // both long
    EXPECT_EQ(runWith(14), 0);   // long -> short
}

TEST(PrefixReuse, ABidirectionalModelKeepsNothing) {
    test::TempDir bert;
    test::writeTinyBert(bert.path(), {.context = 32});
    auto model = Model::open(bert.path());
    auto backend = createCpuBackend();
    ForwardPass pass(*model, *backend);
    EXPECT_FALSE(pass.canKeepPrefix(requestFor(kVariants[0])));
    test::checkPrefixReuse(pass, requestFor(kVariants[0]),
                           test::prefixEdits(20, model->architecture().vocabSize, 3), kTolerance);
}

// Reuse takes the earlier q, k and v from the backend, not from the trace: a trace that kept one
// layer's vectors still lets the next keystroke compute only its new token, and gives the whole
// forward's result; another layer's vectors are refused by name.
TEST(PrefixReuse, WorksWhenTheTraceKeepsOneLayersVectors) {
    test::TempDir llama;
    test::writeTinyLlama(llama.path(), {.kvHeads = 2, .context = 32});
    auto model = Model::open(llama.path());
    auto backend = createCpuBackend();
    ForwardPass pass(*model, *backend);
    ReusingForward reusing(pass);
    ForwardRequest request = appRequestAtLongInputs(model->architecture());
    const int captured = *request.capture.layer;
    request.ids = {5, 9, 2, 7, 11, 3};
    reusing.run(request);
    request.ids.push_back(8);
    const auto reused = reusing.run(request);
    EXPECT_EQ(reusing.reusedTokens(), 6);
    const ForwardResult whole = pass.run(request);
    EXPECT_LE(test::worstRelativeDifference(*reused, whole), kTolerance);
    for (const ForwardResult* r : {reused.get(), &whole})
        for (int l = 0; l < r->trace.layerCount(); ++l) {
            EXPECT_EQ(r->trace.hasVectors(l), l == captured) << l;
            if (l == captured) continue;
            try {
                r->trace.key(l, 0);
                ADD_FAILURE() << "layer " << l << "'s keys were not kept";
            } catch (const Error& e) {
                EXPECT_EQ(std::string(e.what()),
                          "q, k and v of layer " + std::to_string(l) + " were not kept");
            }
        }
    EXPECT_EQ(reused->trace.query(captured, 1).rows(), 7);
}

// A tiny GPT-2, its pass and one ReusingForward, with six tokens already computed.
class PrefixReuseFixture : public testing::Test {
  protected:
    void SetUp() override {
        test::writeTinyGpt2(m_dir.path(), {.context = 32});
        m_model = Model::open(m_dir.path());
        m_pass = std::make_unique<ForwardPass>(*m_model, *m_backend);
        m_reusing = std::make_unique<ReusingForward>(*m_pass);
        m_request.ids = {1, 2, 3, 4, 5, 6};
        m_reusing->run(m_request);
    }
    int runAndCountReused(const ForwardRequest& request) {
        m_reusing->run(request);
        return m_reusing->reusedTokens();
    }

    test::TempDir m_dir;
    std::unique_ptr<Model> m_model;
    std::unique_ptr<Backend> m_backend = createCpuBackend();
    std::unique_ptr<ForwardPass> m_pass;
    std::unique_ptr<ReusingForward> m_reusing;
    ForwardRequest m_request = requestFor(kVariants[0]);
};

// A change of configuration, capture or logits computes whole; going back to a configuration
// still kept (the Compare view alternates two) reuses it.
TEST_F(PrefixReuseFixture, KeepsTwoComputationsAndRecomputesOnAnyOtherChange) {
    ForwardRequest& request = m_request;
    request.ids.push_back(7);
    EXPECT_EQ(runAndCountReused(request), 6);

    ForwardRequest tied = request;
    tied.config = WConfiguration::parse("tied-kv");
    EXPECT_EQ(runAndCountReused(tied), 0) << "another configuration";
    request.ids.push_back(8);
    EXPECT_EQ(runAndCountReused(request), 7) << "the learned computation is still kept";

    request.capture.head = 1;
    EXPECT_EQ(runAndCountReused(request), 0) << "another capture";
    request.logits = LogitsMode::LastPosition;
    EXPECT_EQ(runAndCountReused(request), 0) << "other logits";
    EXPECT_EQ(runAndCountReused(request), 7) << "the same ids again: all but the last token";
    m_reusing->clear();
    EXPECT_EQ(runAndCountReused(request), 0) << "cleared";
}

// A cancelled run leaves the kept computation usable.
TEST_F(PrefixReuseFixture, ACancelledRunKeepsThePreviousComputation) {
    std::atomic<bool> cancel{true};
    m_request.ids.push_back(7);
    m_request.cancel = &cancel;
    EXPECT_THROW(m_reusing->run(m_request), Cancelled);
    m_request.cancel = nullptr;
    EXPECT_EQ(runAndCountReused(m_request), 6);
}

}  // namespace
}  // namespace qkv
