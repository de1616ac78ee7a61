// Block decoding against llama.cpp's own gguf-py: for every quantised file of the shared GGUF
// folders, each weight matrix's largest quantisation error — |decoded − the float32 file| — equals
// the one gguf_reference.json records for gguf-py's dequantisation against the same float32
// source (self_checks.hf_layout_weights_vs_source_safetensors_max_abs; gguf-py agrees bitwise
// with ggml's own to_float there). Types: F16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K, IQ4_XS; the others
// are checked on hand-built blocks (GgmlBlocks).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/model/gguf_checkpoint.h"
#include "tests/support/shared_assets.h"

namespace qkv {
namespace {

// The reference keeps 7 significant digits of a float32 maximum.
double tolerance(double expected) { return 1e-6 * expected + 1e-9; }

// The largest |a − b| over the 2-D tensors of `a` whose Hugging Face name matches `pattern`
// ("model.layers.*.self_attn.q_proj.weight"); nullopt when none does.
std::optional<double> largestError(TensorStore& a, TensorStore& b, const std::string& pattern) {
    const std::regex matching(std::regex_replace(
        std::regex_replace(pattern, std::regex(R"(\.)"), R"(\.)"), std::regex(R"(\*)"), R"(\d+)"));
    std::optional<double> largest;
    for (const std::string& name : a.names()) {
        const TensorInfo* x = a.find(name);
        const TensorInfo* y = b.find(name);
        if (!std::regex_match(name, matching) || x->shape.size() != 2 || !y) continue;
        const float *p = a.floats(*x), *q = b.floats(*y);
        double worst = 0;
        for (std::int64_t i = 0; i < x->elementCount(); ++i)
            worst = std::max(worst, std::abs(static_cast<double>(p[i]) - q[i]));
        largest = std::max(largest.value_or(0.0), worst);
    }
    return largest;
}

TEST(GgufDecoding, EachMatrixsQuantisationErrorIsTheOneGgufPyMeasured) {
    QKV_REQUIRE_SHARED_GGUF(shared);
    int checked = 0;
    for (const char* folder : {"llama-gguf-tiny", "qwen2-gguf-tiny", "qwen3-gguf-tiny",
                               "gemma2-gguf-tiny", "phi3-gguf-tiny"}) {
        const auto dir = shared / "gguf" / folder;
        const nlohmann::json doc =
            nlohmann::json::parse(std::ifstream(dir / "gguf_reference.json"));
        const auto& types = doc["by_quant_type"];
        GgufCheckpoint exact = openGgufCheckpoint(dir / types["F32"]["file"].get<std::string>());
        for (const auto& [type, entry] : types.items()) {
            if (type == "F32") continue;
            GgufCheckpoint file = openGgufCheckpoint(dir / entry["file"].get<std::string>());
            const nlohmann::json& errors = entry["hf_reference"]["self_checks"]
                                                ["hf_layout_weights_vs_source_safetensors_max_abs"];
            for (const auto& [pattern, expected] : errors.items()) {
                const auto ours = largestError(*file.store, *exact.store, pattern);
                if (!ours) continue;  // a norm (float32 in every file) or a tied output
                EXPECT_NEAR(*ours, expected.get<double>(), tolerance(expected.get<double>()))
                    << folder << " " << type << " " << pattern;
                ++checked;
            }
        }
    }
    EXPECT_GE(checked, 5 * 7 * 6);  // five folders, seven types, at least six matrices each
}

}  // namespace
}  // namespace qkv
