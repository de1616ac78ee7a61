#pragma once
// What is trained: a GPT-2 (pre-LN, learned positions, GELU tanh, LayerNorm eps 1e-5, lm_head
// tied to wte, biases everywhere, MLP width 4 d_model) and how its attention weights are tied.
#include <array>
#include <string>

namespace qkv::train {

// Which distinct projection ("source") fills each of the Q, K, V slots of every head. Tying is
// real parameter sharing: a tied layer holds fewer matrices, and one matrix in two slots
// receives the sum of both slots' gradients.
//   learned    3 sources: Q, K, V
//   shared-qk  2 sources: K := Q (Reformer)
//   tied-kv    2 sources: V := K
//   single-w   1 source:  K := V := Q
struct AttentionTying {
    std::string name = "learned";
    int sources = 3;
    std::array<int, 3> slotSource{0, 1, 2};  // q, k, v -> source index

    // learned, shared-qk, tied-kv or single-w; throws qkv::Error naming the choices.
    static AttentionTying parse(const std::string& name);
    static const std::array<const char*, 4>& names();
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
    // Throws qkv::Error when a dimension is out of range or d_model is not a multiple of heads.
    void validate() const;
};

}  // namespace qkv::train
