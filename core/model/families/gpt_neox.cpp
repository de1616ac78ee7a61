// GPT-NeoX / Pythia (keys under "gpt_neox.", output "embed_out"): pre-LayerNorm with a parallel
// residual x + attn(ln1 x) + mlp(ln2 x) (use_parallel_residual), rotary positions on the first
// rotary_pct of each head only, biases everywhere, exact GELU. query_key_value is fused per
// head: output row h·3·d_k + j·d_k + i is element i of head h's q (j = 0), k (1) or v (2), so the
// three projections are gathered into their own matrices once, when the model opens.
#include "core/model/families/binding.h"

namespace qkv::families {
namespace {

void read(const ConfigReader& r, Architecture& c) {
    readStandardShape(r, c, 2048);
    c.kvHeads = c.heads;
    c.normEps = r.numberOr("layer_norm_eps", 1e-5f);
    c.activation = activationNamed(r, "hidden_act", "gelu");
    c.positions = Positions::Rotary;
    c.parallelResidual = r.boolOr("use_parallel_residual", true);
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", false);
    r.requireNull("rope_scaling", "rope_scaling (scaled rotary positions)");
    if (!r.boolOr("attention_bias", true))
        r.fail("\"attention_bias\": false is not supported for GPT-NeoX");
    c.headDim = headDimFromWidth(c, r.where());  // rotary_pct is a fraction of it
    const double fraction = r.numberOr("rotary_pct", 1.0f);
    if (fraction > 1.0) r.fail("\"rotary_pct\" must be at most 1");
    c.rotary.theta = r.numberOr("rotary_emb_base", r.numberOr("rope_theta", 10000.0f));
    c.rotary.context = c.contextLength;
    c.rotary.dims = static_cast<int>(c.headDim * fraction);  // HF: int(head_size * rotary_pct)
    if (c.rotary.dims == 0)
        r.fail("\"rotary_pct\" must rotate between 1 and " + std::to_string(c.headDim) +
               " dimensions of each head");
}

// Rows of the fused [heads·3·d_k, d] tensor that hold projection j (0 q, 1 k, 2 v).
std::vector<int> fusedRows(const Architecture& c, int j) {
    std::vector<int> rows;
    for (int h = 0; h < c.heads; ++h)
        for (int i = 0; i < c.headDim; ++i) rows.push_back((h * 3 + j) * c.headDim + i);
    return rows;
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    const int width = 3 * c.heads * c.headDim;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("embed_in.weight", c.vocabSize, d);
    w.layers = bindLayers(c, "layers.", [&](const std::string& p, LayerWeights& layer) {
        layer.attentionNorm = layerNorm(b, p + "input_layernorm", d);
        LinearWeights* slots[] = {&layer.query, &layer.key, &layer.value};
        for (int j = 0; j < 3; ++j) {
            const std::vector<int> rows = fusedRows(c, j);
            *slots[j] = {
                b.selectedRows(p + "attention.query_key_value.weight", width, d, rows).transposed(),
                b.selectedElements(p + "attention.query_key_value.bias", width, rows)};
        }
        bindLinears(b, c, p,
                    {"", "", "", "attention.dense", "mlp.dense_h_to_4h", "mlp.dense_4h_to_h"}, true,
                    layer);
        layer.mlpNorm = layerNorm(b, p + "post_attention_layernorm", d);
    });
    w.finalNorm = layerNorm(b, "final_layer_norm", d);
    w.lmHead.weight = outputProjection(b, c, "embed_out.weight", w.tokenEmbedding);
    return w;
}

}  // namespace

ModelFamily gptNeox() {
    ModelFamily f{"gpt_neox", {"gpt_neox"}, {"gpt_neox.", ""}, read, bind};
    f.transformers = {.layout = HfProjectionLayout::FusedPerHead,
                      .query = "query_key_value",
                      .key = "",
                      .value = ""};
    return f;
}

}  // namespace qkv::families
