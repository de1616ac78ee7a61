#pragma once
// The op table that ops_test.cpp runs on the Vulkan backend against the CPU backend (in the
// manner of ggml's test-backend-ops): one case per compared result. A case builds its inputs from
// fixed seeds, runs one op (or a short chain) on the backend it is given, downloads one result and
// says how close the two backends must be. The building blocks below are shared with the
// behaviour tests (vulkan_behaviour_test.cpp).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "core/backend/backend.h"

namespace qkv::test {

// How the difference between the Vulkan result and the CPU reference is normalised before it is
// compared with a case's limit.
enum class Normalisation {
    Absolute,   // max |gpu - cpu|
    ToLargest,  // max |gpu - cpu| / (1 + max |cpu|): relative to the largest value, absolute near 0
    ToEach,     // max over i of |gpu_i - cpu_i| / (1 + |cpu_i|): relative to each value
};

struct Tolerance {
    Normalisation normalisation = Normalisation::Absolute;
    double limit = 0.0;  // the largest normalised error allowed (0: bit-exact)
};

std::string describe(const Tolerance& tolerance);

struct NormalisedError {
    double error = 0.0;  // infinite when a value is NaN or the sizes differ
    size_t worst = 0;    // the index where the normalised error peaks
};

NormalisedError normalisedError(const std::vector<float>& actual,
                                const std::vector<float>& expected, Normalisation normalisation);

struct OpCase {
    std::string name;         // the test's name: [A-Za-z0-9_] only, unique in the table
    std::string description;  // every parameter (op, shapes, layout, options, seeds)
    std::function<std::vector<float>(Backend&)> run;  // inputs from fixed seeds, one result
    Tolerance tolerance;
    // > 0: the Vulkan side runs on a backend whose VulkanOptions::maxBufferRange is this many
    // bytes instead of the shared one.
    std::uint64_t maxBufferRange = 0;
};

// Every case, in a fixed order.
const std::vector<OpCase>& backendOpCases();
// The cases of the mixers without a softmax (mixer_op_cases.cpp): causalConv, gatedDeltaRule.
void addMixerCases(std::vector<OpCase>& cases);

// gtest prints a failing parameter with this instead of its bytes.
void PrintTo(const OpCase& c, std::ostream* os);

// Building blocks.

enum class WeightLayout { RowMajor, ColMajor, RowMajorBlock, ColMajorBlock, TransposedRowMajor };

const char* layoutName(WeightLayout layout);  // in words, e.g. "column-major [out, in]"
const char* layoutTag(WeightLayout layout);   // an identifier, e.g. "ColMajor"

// A k x n weight view over `storage` in the given layout; storage holds k * n * 3 floats (enough
// for the largest layout, the column blocks).
MatrixView weightView(WeightLayout layout, const std::vector<float>& storage, int k, int n);

struct RopeShape {
    int rows, headDim, heads;
    float theta;
    int rotaryDims;            // partial rotary (GPT-NeoX) when below headDim
    float scale = 1.0f;        // on cos and sin (YaRN's, LongRoPE's attention factor)
    bool interleaved = false;  // pairs (2i, 2i + 1): ERNIE 4.5, Cohere 2
};

const std::vector<RopeShape>& ropeShapes();
std::vector<float> ropeInput(const RopeShape& s);  // rows x (headDim * heads)
std::vector<float> runRope(Backend& backend, const RopeShape& s);
RotaryFrequencies ropeFrequencies(const RopeShape& s);  // HF's default frequencies, s.scale

}  // namespace qkv::test
