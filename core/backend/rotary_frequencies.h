#pragma once
// What a backend's rope() needs of a rotary embedding: the inverse frequency of each rotated pair
// of dimensions (float32, as Hugging Face holds them) and a factor on cos and sin (YaRN's and
// LongRoPE's attention factor; 1 otherwise). Position p rotates pair i by the float32 angle
// p · inverse[i], so both backends rotate by identical numbers. Pair i is the head's dimensions
// (i, i + rotaryDims/2) (Hugging Face's rotate_half) or, interleaved, (2i, 2i + 1) (GLM, ERNIE,
// Cohere).
#include <vector>

namespace qkv {

struct RotaryFrequencies {
    std::vector<float> inverse;  // one per rotated pair: rotaryDims / 2 entries
    float scale = 1.0f;          // multiplies cos and sin
    bool interleaved = false;

    int rotaryDims() const { return static_cast<int>(inverse.size()) * 2; }
    bool operator==(const RotaryFrequencies&) const = default;
};

}  // namespace qkv
