// A model of Ollama's store is named as Ollama names it (NAME:TAG) by every command, its blob's
// digest a field of its own; a name the store lacks says where it looked.
#include <gtest/gtest.h>

#include "tests/cli/cli_run.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

TEST(CliOllama, ModelsAreNamedByNameAndTag) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    const std::string store =
        "OLLAMA_MODELS=" + test::shellQuote((shared / "gguf" / "stores" / "ollama").string());
    test::CliRun r = test::cli({"info", "--model", "ollama:llama-gguf-tiny", "--json"}, store);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.json()["model"], "llama-gguf-tiny:latest");
    EXPECT_EQ(r.json()["digest"],
              "sha256:0eba1263ebf98f329b6eada6ec45bba8d1fc8903f84997130d50506e53fcc677");
    r = test::cli({"attention", "--model", "ollama:llama-gguf-tiny:f32", "--ids", "1,2,3",
                   "--layer", "0", "--head", "0", "--backend", "cpu"},
                  store);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out.rfind("model llama-gguf-tiny:f32,", 0), 0u) << r.out;
    r = test::cli({"info", "--model", "ollama:not-pulled"}, store);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("no such model in the Ollama store"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("OLLAMA_MODELS"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace qkv
