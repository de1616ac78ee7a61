#pragma once
// Rotary position embeddings as Hugging Face transformers computes them (modeling_rope_utils):
// a base theta, the rotated dimensions of each head, and a rope_type that rescales the
// frequencies — linear, dynamic (NTK, for inputs longer than max_position_embeddings), yarn (with
// an attention factor on cos and sin), longrope (short or long factors by the input's length),
// llama3 (three frequency bands), proportional (a fraction of the pairs turn, Gemma 4), and
// frequency_factors, a GGUF file's own per-pair divisors (llama.cpp's rope_freqs tensor, which
// its converter writes for Llama 3.1's llama3 scaling; not a transformers type). Read from
// config.json as transformers 4.x writes it (rope_theta, rope_scaling with "type" or "rope_type",
// partial_rotary_factor) or 5.x (rope_parameters: one object, or one per layer type).
#include <string>
#include <vector>

#include "core/backend/rotary_frequencies.h"
#include "core/io/config_reader.h"

namespace qkv {

enum class RopeType {
    Default,
    Linear,
    Dynamic,
    Yarn,
    LongRope,
    Llama3,
    Proportional,
    FrequencyFactors
};

struct RopeScaling {
    RopeType type = RopeType::Default;
    double factor = 1.0;
    int originalContext = 0;  // original_max_position_embeddings (0: the model's context)
    // llama3: wavelengths below originalContext / high keep their frequency, above
    // originalContext / low are divided by factor, and the band between is interpolated.
    double lowFrequencyFactor = 1.0;
    double highFrequencyFactor = 4.0;
    // yarn
    double betaFast = 32.0;
    double betaSlow = 1.0;
    double attentionFactor = 0.0;  // 0: from factor (and mscale / mscale_all_dim)
    double mscale = 0.0;
    double mscaleAllDim = 0.0;
    bool truncate = true;
    // dynamic with an alpha (Hunyuan's NTK-alpha): the base is theta · alpha^(dims/(dims-2)) at
    // every length, as the models use it (0: no alpha).
    double alpha = 0.0;
    // longrope: one factor per rotated pair, the long ones for inputs longer than
    // originalContext.
    std::vector<double> shortFactors;
    std::vector<double> longFactors;
    // proportional (Gemma 4's global layers): every dimension is paired as in full rotary, but
    // only the first `rotatedPairs` pairs turn, at theta^(-2i/head_dim); the rest have frequency
    // zero and pass through.
    int rotatedPairs = 0;
    // frequency_factors: each pair's frequency theta^(-2i/dims) divided by its factor.
    std::vector<double> frequencyFactors;
};

struct Rotary {
    double theta = 10000.0;
    int dims = 0;     // rotated leading dimensions of each head (partial rotary below head_dim)
    int context = 0;  // max_position_embeddings
    RopeScaling scaling;
    // Pairs (2i, 2i + 1) of each head turn together (GLM, ERNIE 4.5, Cohere 2) rather than
    // Hugging Face's usual (i, i + dims/2).
    bool interleaved = false;

    // The frequencies for an input of `tokens` positions (dynamic and longrope depend on it).
    RotaryFrequencies frequencies(int tokens) const;
    // Whether an input's length changes every position's rotation (prefix reuse must then
    // recompute the kept tokens): dynamic beyond the context, longrope across originalContext.
    bool dependsOnLength() const;
    // The longest input it defines: dynamic scaling extends the context by its factor.
    int longestInput() const;
    // "rotary θ=10000", "rotary θ=500000, llama3 ×8", ... for titles and reports.
    std::string describe() const;
};

// The rope_type names transformers uses ("default", "linear", ...).
const char* ropeTypeName(RopeType type);

// How a family's rotary embedding is read: the defaults of its transformers config class.
struct RotaryKeys {
    double defaultTheta = 10000.0;
    const char* thetaKey = "rope_theta";  // Gemma-3's local layers: rope_local_base_freq
    bool scaled = true;                   // false: rope_scaling does not apply (Gemma-3 local)
};

// The rotary embedding of layers of `layerType` ("full_attention", "sliding_attention") with
// heads of `headDim`; throws naming the key for an unknown rope_type, a factor list of the wrong
// length or a missing required key.
Rotary readRotary(const ConfigReader& r, int headDim, int context, const RotaryKeys& keys = {},
                  const std::string& layerType = "full_attention");

}  // namespace qkv
