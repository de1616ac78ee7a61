// Falcon-H1 (falcon_h1, keys under "model."): every layer runs grouped-query attention and a
// Mamba-2 mixer side by side on the same input_layernorm(x) and adds both to the residual, then
// x + mlp(pre_ff_layernorm(x)); the final norm is final_layernorm.
//   - attention: self_attn.{q,k,v,o}_proj, rotary, head_dim from the config; keys ×
//     key_multiplier, which applies to whatever fills the key slot (a factor of the scores)
//   - Mamba-2 (Architecture::besideMamba): mamba.in_proj's rows [z | x | B | C | dt] with
//     mamba_d_ssm channels, conv1d over [x | B | C], A_log, D, dt_bias, Δ within
//     time_step_limit, y · silu(z) (mamba_rms_norm: RMS-normed per group after the gate)
//   - the MLP down(up h · silu(gate h · g)) · d with mlp_multipliers [g, d].
// Falcon's µP multipliers scale the outputs of the projections they follow
// (LinearWeights::scale), so that each gives what transformers computes: q, k, v ×
// attention_in_multiplier, o_proj × attention_out_multiplier, in_proj's five row blocks ×
// ssm_in_multiplier · ssm_multipliers, out_proj × ssm_out_multiplier; embeddings ×
// embedding_multiplier, logits × lm_head_multiplier.
#include <cmath>

#include "core/model/families/mamba2.h"

namespace qkv::families {
namespace {

std::vector<double> numbersOr(const ConfigReader& r, const char* key, size_t count) {
    if (!r.has(key)) return std::vector<double>(count, 1.0);
    std::vector<double> values = r.numbers(key);
    if (values.size() != count)
        r.fail("\"" + std::string(key) + "\" lists " + std::to_string(values.size()) +
               " multipliers, not " + std::to_string(count));
    return values;
}

ProjectionScales scalesOf(const ConfigReader& r) {
    ProjectionScales s;
    s.attentionInput = r.numberOr("attention_in_multiplier", 1.0f);
    s.attentionOutput = r.numberOr("attention_out_multiplier", 1.0f);
    s.mixerInput = r.numberOr("ssm_in_multiplier", 1.0f);
    s.mixerOutput = r.numberOr("ssm_out_multiplier", 1.0f);
    const std::vector<double> blocks = numbersOr(r, "ssm_multipliers", 5);
    for (int i = 0; i < 5; ++i) s.mixerBlocks[i] = static_cast<float>(blocks[i]);
    const std::vector<double> mlp = numbersOr(r, "mlp_multipliers", 2);
    s.mlpGate = static_cast<float>(mlp[0]);
    s.mlpOutput = static_cast<float>(mlp[1]);
    return s;
}

void read(const ConfigReader& r, Architecture& c) {
    readRotaryDecoder(r, c);
    c.mlpBias = r.boolOr("mlp_bias", false);
    c.attentionBias = r.boolOr("attention_bias", false);
    c.embeddingScale = r.numberOr("embedding_multiplier", 1.0f);
    c.logitInputScale = r.numberOr("lm_head_multiplier", 1.0f);
    // Keys × key_multiplier: the scores' factor beside head_dim^-1/2.
    c.attentionScale =
        r.numberOr("key_multiplier", 1.0f) / std::sqrt(static_cast<float>(c.headDim));
    c.projectionScales = scalesOf(r);

    LayerKind mamba = readMamba2(
        r, {"mamba_n_heads", "mamba_d_head", "mamba_n_groups", "mamba_d_state", "mamba_d_conv"}, c);
    const int inner = r.has("mamba_d_ssm")
                          ? r.width("mamba_d_ssm")
                          : static_cast<int>(r.numberOr("mamba_expand", 2.0f) * c.dModel);
    if (inner != mamba.heads * mamba.valueDim)
        r.fail("\"mamba_d_ssm\" (" + std::to_string(inner) + ") is not \"mamba_n_heads\" × " +
               "\"mamba_d_head\" (" + std::to_string(mamba.heads * mamba.valueDim) + ")");
    readTimeStepLimit(r, c);
    c.mamba2.gatedNorm = r.boolOr("mamba_rms_norm", false);
    c.mamba2.normGroups = mamba.kvHeads;
    if (c.mamba2.gatedNorm && r.boolOr("mamba_norm_before_gate", true))
        r.fail(
            "\"mamba_rms_norm\" with \"mamba_norm_before_gate\" true (norm, then gate) is not "
            "supported: only the gate, then the norm");
    c.besideMamba = mamba;
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const ProjectionScales& m = c.projectionScales;
    ModelWeights w;
    w.tokenEmbedding = b.matrix("embed_tokens.weight", c.vocabSize, c.dModel);
    w.layers =
        bindLayersByIndex(c, "layers.", [&](const std::string& p, int l, LayerWeights& layer) {
            layer.attentionNorm = rmsNorm(b, p + "input_layernorm", c.dModel);
            bindLlamaAttention(b, c, p + "self_attn.", c.attentionBias, layer, c.attentionBias);
            layer.query.scale = m.attentionInput;
            layer.key.scale = m.attentionInput;
            layer.value.scale = m.attentionInput;
            layer.output.scale = m.attentionOutput;

            LayerWeights& mixer = layer.beside.emplace_back();
            bindMamba2(b, c.besideAt(l), p + "mamba.", mixer);
            const auto in = [&](int block) { return m.mixerInput * m.mixerBlocks[block]; };
            mixer.recurrent.z.scale = in(0);
            mixer.value.scale = in(1);
            mixer.key.scale = in(2);
            mixer.query.scale = in(3);
            mixer.recurrent.a.scale = in(4);
            mixer.output.scale = m.mixerOutput;

            layer.mlpNorm = rmsNorm(b, p + "pre_ff_layernorm", c.dModel);
            bindGatedMlp(b, c, p + "feed_forward.", layer);
            layer.mlpGate.scale = m.mlpGate;
            layer.mlpOut.scale = m.mlpOutput;
        });
    w.finalNorm = rmsNorm(b, "final_layernorm", c.dModel);
    w.lmHead.weight = outputProjection(b, c, "lm_head.weight", w.tokenEmbedding);
    return w;
}

}  // namespace

ModelFamily falconH1() { return {"falcon_h1", {"falcon_h1"}, {"model.", ""}, read, bind}; }

}  // namespace qkv::families
