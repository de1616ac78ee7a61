// The models other tools keep: Ollama's store (a name's manifest names its model blob, a GGUF
// file) and LM Studio's folders, against shared/gguf/stores and its EXPECTED.json; damaged
// stores are refused naming the manifest or blob.
#include "core/io/local_stores.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/hub/model_location.h"
#include "core/model/model.h"
#include "core/util/error.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/scoped_environment.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

TEST(OllamaStore, NamesResolveToTheModelBlobAndOpen) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    const auto store = shared / "gguf" / "stores" / "ollama";
    const auto blob =
        store / "blobs" / "sha256-0eba1263ebf98f329b6eada6ec45bba8d1fc8903f84997130d50506e53fcc677";
    for (const char* name : {"ollama:llama-gguf-tiny", "ollama:llama-gguf-tiny:latest",
                             "ollama:llama-gguf-tiny:f32", "ollama:library/llama-gguf-tiny:f32",
                             "ollama:registry.ollama.ai/library/llama-gguf-tiny"})
        EXPECT_EQ(resolveOllamaModel(name, store), blob) << name;
    EXPECT_FALSE(resolveOllamaModel("llama-gguf-tiny", store).has_value());
    const std::vector<LocalModel> listed = listOllamaModels(store);
    ASSERT_EQ(listed.size(), 2u);
    EXPECT_EQ(listed[0].name, "ollama:llama-gguf-tiny:f32");
    EXPECT_EQ(listed[1].name, "ollama:llama-gguf-tiny:latest");
    EXPECT_EQ(listed[1].bytes, 6844800u);
    for (const auto& [name, expected] : std::vector<std::pair<std::string, std::string>>{
             {"ollama:nothing-here", "no such model in the Ollama store"},
             {"ollama:nothing-here", "OLLAMA_MODELS"},
             {"ollama:../x", "not an Ollama model name"},
             {"ollama:a:", "not an Ollama model name"}}) {
        try {
            resolveOllamaModel(name, store);
            ADD_FAILURE() << name;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
        }
    }
}

TEST(OllamaStore, AModelOpensByItsNameFromOllamaModels) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    const auto store = shared / "gguf" / "stores" / "ollama";
    test::ScopedEnvironment environment;
    environment.set("OLLAMA_MODELS", store.string());
    // Named NAME:TAG as `ollama list` names it, not by its blob's digest.
    EXPECT_EQ(Model::open("ollama:llama-gguf-tiny:f32")->name(), "llama-gguf-tiny:f32");
    const auto model = Model::open(locateModel("ollama:llama-gguf-tiny", "main"));
    EXPECT_EQ(model->name(), "llama-gguf-tiny:latest");
    EXPECT_EQ(model->architecture().family, "llama");
}

TEST(OllamaStore, ADamagedStoreIsRefusedNamingWhatIsWrong) {
    const test::TempDir dir;
    const auto manifests = dir.path() / "manifests" / "registry.ollama.ai" / "library" / "m";
    std::filesystem::create_directories(manifests);
    std::filesystem::create_directories(dir.path() / "blobs");
    const std::string digest(64, 'a');
    test::writeText(manifests / "latest",
                    R"({"layers":[{"mediaType":"application/vnd.ollama.image.model",)"
                    R"("digest":"sha256:)" +
                        digest + R"(","size":10}]})");
    auto refusal = [&] {
        try {
            resolveOllamaModel("ollama:m", dir.path());
            return std::string("(resolved)");
        } catch (const Error& e) {
            return std::string(e.what());
        }
    };
    EXPECT_NE(refusal().find("blob is missing"), std::string::npos) << refusal();
    test::writeText(dir.path() / "blobs" / ("sha256-" + digest), "GGUF");
    EXPECT_NE(refusal().find("4 bytes, the manifest says 10"), std::string::npos) << refusal();
    test::writeText(manifests / "latest", R"({"layers":[]})");
    EXPECT_NE(refusal().find("names no model layer"), std::string::npos) << refusal();
    test::writeText(manifests / "latest", "{not json");
    EXPECT_NE(refusal().find("not a valid Ollama manifest"), std::string::npos) << refusal();
    EXPECT_TRUE(listOllamaModels(dir.path()).empty());
    EXPECT_TRUE(listOllamaModels(dir.path() / "absent").empty());
}

TEST(LmStudioFolder, ModelsAreListedAndResolved) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    const auto home = shared / "gguf" / "stores" / "lmstudio";
    const std::vector<LocalModel> listed = listLmStudioModels(home);
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].name, "lmstudio:qkv-lab/llama-gguf-tiny-GGUF/llama-gguf-tiny-F32.gguf");
    EXPECT_EQ(resolveLmStudioModel(listed[0].name, home), listed[0].file);
    EXPECT_THROW(resolveLmStudioModel("lmstudio:../../etc/passwd", home), Error);
    EXPECT_FALSE(resolveLmStudioModel("qkv-lab/x", home).has_value());
}

}  // namespace
}  // namespace qkv
