// BART (facebook/bart-*, and summarisers fine-tuned from it): the post-LayerNorm
// encoder-decoder of post_norm_seq2seq.h, differing from Marian in
//   - learned positions, a table per stack ("encoder.embed_positions", "decoder.embed_positions")
//     of max_position_embeddings + 2 rows, position p reading row p + 2 (BartLearnedPositional
//     Embedding's offset);
//   - a LayerNorm over token + position embeddings in each stack ("layernorm_embedding");
//   - defaults: no embedding scale, gelu (exact), and the decoder starts from </s> (id 2).
#include "core/model/families/post_norm_seq2seq.h"

namespace qkv::families {
namespace {

constexpr int kPositionOffset = 2;

void readBart(const ConfigReader& r, Architecture& c) {
    readPostNormSeq2Seq(r, c,
                        {.activation = "gelu", .scaleEmbedding = false, .decoderStartToken = 2});
    c.contextLength = r.positiveIntOr("max_position_embeddings", 1024);
    c.positionOffset = kPositionOffset;
}

ModelWeights bindBart(TensorBinder& b, const Architecture& c) {
    ModelWeights w = bindPostNormSeq2Seq(b, c);
    const int rows = c.contextLength + kPositionOffset;
    w.positionEmbedding = b.matrix("encoder.embed_positions.weight", rows, c.dModel);
    w.embeddingNorm = layerNorm(b, "encoder.layernorm_embedding", c.dModel);
    w.decoderPositionEmbedding = b.matrix("decoder.embed_positions.weight", rows, c.dModel);
    w.decoderEmbeddingNorm = layerNorm(b, "decoder.layernorm_embedding", c.dModel);
    return w;
}

}  // namespace

// Its vocab.json + merges.txt are RoBERTa's (transformers converts both with one converter).
ModelFamily bart() {
    ModelFamily f{"bart", {"bart"}, {"model.", ""}, readBart, bindBart};
    f.tokenizer.style = TokenizerHints::Style::Roberta;
    f.transformers = {.modelClass = HfModelClass::Seq2SeqLm};
    return f;
}

}  // namespace qkv::families
