#pragma once
// What is trained: a GPT-2 (pre-LN, learned positions, GELU tanh, LayerNorm eps 1e-5, lm_head
// tied to wte, biases everywhere, MLP width 4 d_model) and the attention variant it uses.
#include <array>
#include <string>

namespace qkv::train {

// How each layer's attention forms its scores. Tying is real parameter sharing: a tied layer
// holds fewer matrices, and one matrix in two slots receives the sum of both slots' gradients.
//   learned             3 sources: Q, K, V
//   shared-qk           2 sources: K := Q
//   tied-kv             2 sources: V := K
//   single-w            1 source:  K := V := Q
//   full-bilinear       per head one d_model x d_model W_h: S_ij = (x_i W_h + c_h) . x_j
//                       (c_h plays the key-side bias b_q W_K^T), plus V
//   scale-outside       learned, with 1/sqrt(d_k) applied after the softmax
//   shared-qk-reformer  K := Q with unit-length keys (k = q / |q|) and self-attention masked
//                       except where a token may see nothing else (Reformer)
struct AttentionTying {
    std::string name = "learned";
    int sources = 3;                         // distinct d_model-wide projections (factored)
    std::array<int, 3> slotSource{0, 1, 2};  // q, k, v -> source index (factored)
    bool fullBilinear = false;
    bool scaleOutside = false;
    bool reformer = false;  // unit keys + self mask

    // One of names(); throws qkv::Error naming the choices.
    static AttentionTying parse(const std::string& name);
    static const std::array<const char*, 7>& names();
};

struct ModelShape {
    int layers = 4;
    int heads = 4;
    int dModel = 128;
    int context = 128;  // positions
    int vocab = 0;      // set from the tokenizer
    AttentionTying tying;

    int headDim() const { return dModel / heads; }
    int dFF() const { return 4 * dModel; }
    // Columns of a layer's attention projection: sources * d_model, or for full-bilinear
    // heads * d_model (the W_h side by side) + d_model (V).
    int attentionColumns() const {
        return tying.fullBilinear ? (heads + 1) * dModel : tying.sources * dModel;
    }
    // Throws qkv::Error when a dimension is out of range or d_model is not a multiple of heads.
    void validate() const;
};

}  // namespace qkv::train
