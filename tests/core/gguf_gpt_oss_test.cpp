// gpt-oss as llama.cpp's converter writes it (tests/support/gguf_gpt_oss.h): written from the
// shared reference it computes as transformers does; with its experts in ggml's MXFP4 blocks, as
// the float32 twin of those values.
#include "tests/support/gguf_gpt_oss.h"

#include <gtest/gtest.h>

#include "core/model/forward.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/mxfp4_fixture.h"
#include "tests/support/reference.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

// As ForwardReference on the folder: float32 against transformers' float64 reference.
constexpr double kAttentionTolerance = 1e-4;
constexpr double kLogitTolerance = 5e-4;

TEST(GgufGptOss, ComputesAsTransformersDoes) {
    QKV_REQUIRE_SHARED(shared);
    const auto folder = shared / "models" / "gpt_oss-random-tiny";
    const test::TempDir dir;
    test::writeGptOssGguf(folder, dir.path() / "gpt-oss.gguf", test::GgufExperts::Float32);
    const auto model = Model::open(dir.path() / "gpt-oss.gguf");
    EXPECT_EQ(model->architecture().family, "gpt_oss");
    EXPECT_TRUE(model->architecture().attentionSinks);
    test::expectOriginalResults(*model, test::loadReference(folder / "hf_reference.json"),
                                kAttentionTolerance, kLogitTolerance);
}

// The experts as ggml's MXFP4 blocks decode to the values of the Hub's MXFP4 (the same
// quantiser's blocks, packed the Hub's way), whose float32 twin the file must then compute.
TEST(GgufGptOss, Mxfp4ExpertsComputeTheirDequantisedTwin) {
    QKV_REQUIRE_SHARED(shared);
    const test::TempDir dir, packed, twinDir;
    test::writeMxfp4Twins(shared / "models" / "gpt_oss-random-tiny", packed.path(), twinDir.path());
    test::writeGptOssGguf(twinDir.path(), dir.path() / "gpt-oss.gguf", test::GgufExperts::Mxfp4);
    const auto file = Model::open(dir.path() / "gpt-oss.gguf");
    const auto twin = Model::open(twinDir.path());
    EXPECT_NE(file->architecture().quantisation.find("MXFP4 6"), std::string::npos)
        << file->architecture().quantisation;  // two layers' gate, up and down
    // The same float32 values (MXFP4 values quantise to themselves), multiplied in another
    // order: float32 rounding apart.
    test::expectSameResults(*file, *twin, 1e-5f, 1e-4f);
}

}  // namespace
}  // namespace qkv
