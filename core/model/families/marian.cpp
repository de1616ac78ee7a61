// Marian (opus-mt translation models): the post-LayerNorm encoder-decoder of
// post_norm_seq2seq.h, with
//   - token embeddings times √d_model when scale_embedding (opus-mt configs say so);
//   - sinusoidal positions computed, not stored, shared by both stacks: for position p and
//     column j < d/2, sin(p / 10000^(2j/d)), and column d/2 + j the cosine of the same angle
//     (MarianSinusoidalPositionalEmbedding's layout: all sines, then all cosines);
//   - no embedding norm; the decoder starts from the pad token; activation swish by default.
#include <cmath>

#include "core/model/families/post_norm_seq2seq.h"

namespace qkv::families {
namespace {

void readMarian(const ConfigReader& r, Architecture& c) {
    readPostNormSeq2Seq(r, c,
                        {.activation = "swish", .scaleEmbedding = false, .decoderStartToken = -1});
    c.contextLength = r.positiveIntOr("max_position_embeddings", 512);
    if (r.boolOr("normalize_embedding", false))
        r.fail("\"normalize_embedding\": true is not supported");
}

// The table HF computes in float64 and stores as float32.
MatrixView sinusoidalPositions(TensorBinder& b, int positions, int d) {
    std::vector<float> table(static_cast<size_t>(positions) * d);
    const int sines = (d + 1) / 2;
    for (int p = 0; p < positions; ++p)
        for (int j = 0; j < d; ++j) {
            const int pair = j < sines ? j : j - sines;  // the angle's index 2·pair / d
            const double angle = p / std::pow(10000.0, 2.0 * pair / d);
            table[static_cast<size_t>(p) * d + j] =
                static_cast<float>(j < sines ? std::sin(angle) : std::cos(angle));
        }
    return b.computedMatrix(std::move(table), positions, d);
}

ModelWeights bindMarian(TensorBinder& b, const Architecture& c) {
    ModelWeights w = bindPostNormSeq2Seq(b, c);
    w.positionEmbedding = w.decoderPositionEmbedding =
        sinusoidalPositions(b, c.contextLength, c.dModel);
    return w;
}

}  // namespace

ModelFamily marian() {
    ModelFamily f{"marian", {"marian"}, {"model.", ""}, readMarian, bindMarian};
    f.transformers = {.modelClass = HfModelClass::Seq2SeqLm};
    return f;
}

}  // namespace qkv::families
