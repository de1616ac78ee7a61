// Nemotron-H (nemotron_h; Nemotron-H, Nemotron 3; keys under "backbone."): a stack of blocks
// x + mixer(RMSNorm(x)), each with one mixer from layers_block_type ("mamba" or
// "linear_attention", "attention" or "full_attention", "mlp", "moe") or the Hub's
// hybrid_override_pattern (M, *, -, E):
//   - Mamba-2 (Mixer::Mamba2): in_proj's rows [z | x | B | C | dt] (B and C group-major), conv1d
//     over [x | B | C] with a bias, A_log, D, dt_bias per head, Δ clamped below at
//     time_step_min (transformers reads no time_step_limit here), RMSNorm(y · silu(z)) per group
//   - attention without positions, grouped-query, scale head_dim^-1/2
//   - an MLP down(relu(up x)²), or a mixture of such experts routed by sigmoid scores with a
//     correction bias within the best groups, times routed_scaling_factor, beside a shared one.
// Hugging Face numbers every block a layer: a Mamba-2 or attention block is a layer without an
// MLP, an MLP or MoE block one without heads. Multi-token-prediction tensors (mtp.*) are not read.
#include <algorithm>

#include "core/model/families/mamba2.h"

namespace qkv::families {
namespace {

enum class Block { Mamba, Attention, Mlp, Moe };

std::vector<Block> readBlocks(const ConfigReader& r) {
    std::vector<Block> blocks;
    if (r.has("layers_block_type")) {
        for (const std::string& type : r.strings("layers_block_type")) {
            if (type == "mamba" || type == "linear_attention")
                blocks.push_back(Block::Mamba);
            else if (type == "attention" || type == "full_attention")
                blocks.push_back(Block::Attention);
            else if (type == "mlp")
                blocks.push_back(Block::Mlp);
            else if (type == "moe")
                blocks.push_back(Block::Moe);
            else
                r.fail("\"layers_block_type\" entry \"" + type +
                       "\" is not supported (mamba, attention, mlp or moe)");
        }
    } else {
        const std::string pattern = r.stringOr("hybrid_override_pattern", "");
        if (pattern.empty())
            r.fail("missing \"layers_block_type\" (or \"hybrid_override_pattern\")");
        for (char ch : pattern) {
            if (ch == 'M')
                blocks.push_back(Block::Mamba);
            else if (ch == '*')
                blocks.push_back(Block::Attention);
            else if (ch == '-')
                blocks.push_back(Block::Mlp);
            else if (ch == 'E')
                blocks.push_back(Block::Moe);
            else
                r.fail("\"hybrid_override_pattern\" holds '" + std::string(1, ch) +
                       "' (only M, *, - and E)");
        }
    }
    if (r.has("num_hidden_layers") &&
        r.positiveInt("num_hidden_layers") != static_cast<int>(blocks.size()))
        r.fail("\"num_hidden_layers\" (" + std::to_string(r.positiveInt("num_hidden_layers")) +
               ") disagrees with the " + std::to_string(blocks.size()) + " blocks listed");
    return blocks;
}

void readMoe(const ConfigReader& r, Architecture& c) {
    c.moe = readExperts(r, "n_routed_experts", r.width("moe_intermediate_size"),
                        r.boolOr("norm_topk_prob", true));
    c.moe.router = Router::SigmoidTopK;
    c.moe.scale = r.numberOr("routed_scaling_factor", 1.0f);
    c.moe.groups = r.positiveIntOr("n_group", 1);
    c.moe.groupsKept = r.positiveIntOr("topk_group", 1);
    if (c.moe.experts % c.moe.groups != 0 || c.moe.groupsKept > c.moe.groups)
        r.fail("\"n_group\" " + std::to_string(c.moe.groups) + " and \"topk_group\" " +
               std::to_string(c.moe.groupsKept) + " do not fit " + std::to_string(c.moe.experts) +
               " experts");
    c.moe.sharedWidth = r.width("moe_shared_expert_intermediate_size");
}

void read(const ConfigReader& r, Architecture& c) {
    const std::vector<Block> blocks = readBlocks(r);
    c.layers = static_cast<int>(blocks.size());
    c.dModel = r.width("hidden_size");
    c.heads = r.positiveInt("num_attention_heads");
    c.kvHeads = r.positiveIntOr("num_key_value_heads", c.heads);
    c.headDim = r.widthOr("head_dim", 0);
    c.dFF = r.width("intermediate_size");
    c.vocabSize = r.positiveInt("vocab_size");
    c.contextLength = r.positiveIntOr("max_position_embeddings", 4096);
    c.norm = NormKind::RmsNorm;
    c.normEps = r.numberOr("layer_norm_epsilon", 1e-5f);
    c.positions = Positions::Rotary;  // with every attention layer NoPE: no positions at all
    c.activation = activationNamed(r, "mlp_hidden_act", "relu2");
    c.tiedEmbeddings = r.boolOr("tie_word_embeddings", false);
    c.attentionBias = r.boolOr("attention_bias", false);
    c.mlpBias = r.boolOr("mlp_bias", false);
    LayerKind mamba = readMamba2(
        r, {"mamba_num_heads", "mamba_head_dim", "n_groups", "ssm_state_size", "conv_kernel"}, c);
    mamba.mlp = false;
    c.mamba2.dtMin = r.numberOr("time_step_min", 0.0f);  // time_step_limit is not read
    c.mamba2.normGroups = mamba.kvHeads;
    c.layerKinds.assign(c.layers, LayerKind{});
    for (int l = 0; l < c.layers; ++l) {
        LayerKind& k = c.layerKinds[l];
        k.rotary = false;
        switch (blocks[l]) {
            case Block::Mamba:
                k = mamba;
                break;
            case Block::Attention:
                k.mlp = false;
                break;
            case Block::Mlp:
                k.mixer = Mixer::None;
                break;
            case Block::Moe:
                k.mixer = Mixer::None;
                k.experts = true;
                break;
        }
    }
    if (std::find(blocks.begin(), blocks.end(), Block::Moe) != blocks.end()) readMoe(r, c);
}

// Non-gated experts (relu(up x)² then down) and the shared one under `p` ("layers.N.mixer.").
void bindMoe(TensorBinder& b, const Architecture& c, const std::string& p, LayerWeights& layer) {
    const int d = c.dModel, width = c.moe.width;
    layer.router = linearLayer(b, p + "gate", d, c.moe.experts, false);
    layer.routerChoiceBias = b.vector(p + "gate.e_score_correction_bias", c.moe.experts);
    for (int e = 0; e < c.moe.experts; ++e) {
        const std::string expert = p + "experts." + std::to_string(e) + ".";
        layer.experts.push_back({linearLayer(b, expert + "up_proj", d, width, c.mlpBias),
                                 {},
                                 linearLayer(b, expert + "down_proj", width, d, c.mlpBias)});
    }
    const int shared = c.moe.sharedWidth;
    layer.mlpIn = linearLayer(b, p + "shared_experts.up_proj", d, shared, c.mlpBias);
    layer.mlpOut = linearLayer(b, p + "shared_experts.down_proj", shared, d, c.mlpBias);
}

ModelWeights bind(TensorBinder& b, const Architecture& c) {
    const int d = c.dModel;
    ModelWeights w;
    // transformers v5's save_pretrained writes "embedding", the Hub's files "embeddings".
    w.tokenEmbedding = b.matrix(
        b.has("embedding.weight") ? "embedding.weight" : "embeddings.weight", c.vocabSize, d);
    w.layers =
        bindLayersByIndex(c, "layers.", [&](const std::string& p, int l, LayerWeights& layer) {
            const NormWeights norm = rmsNorm(b, p + "norm", d);
            const std::string mixer = p + "mixer.";
            switch (c.mixerOf(l)) {
                case Mixer::Mamba2:
                    layer.attentionNorm = norm;
                    bindMamba2(b, c.atLayer(l), mixer, layer);
                    break;
                case Mixer::Attention:
                    layer.attentionNorm = norm;
                    bindLlamaAttention(b, c, mixer, c.attentionBias, layer, c.attentionBias);
                    break;
                default:
                    layer.mlpNorm = norm;
                    if (c.kindOf(l).experts) {
                        bindMoe(b, c, mixer, layer);
                    } else {
                        layer.mlpIn = linearLayer(b, mixer + "up_proj", d, c.dFF, c.mlpBias);
                        layer.mlpOut = linearLayer(b, mixer + "down_proj", c.dFF, d, c.mlpBias);
                    }
            }
        });
    w.finalNorm = rmsNorm(b, "norm_f", d);
    w.lmHead.weight = outputProjection(b, c, "lm_head.weight", w.tokenEmbedding);
    return w;
}

}  // namespace

// transformers' q_proj, k_proj and v_proj under "mixer."; a Mamba-2 layer's C, B and x are
// in_proj's rows (DESIGN: C plays W_Q, B plays W_K, x plays W_V).
ModelFamily nemotronH() { return {"nemotron_h", {"nemotron_h"}, {"backbone.", ""}, read, bind}; }

}  // namespace qkv::families
