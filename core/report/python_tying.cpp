#include "core/report/python_tying.h"

namespace qkv {
namespace {

using P = Projection;

char letter(Projection p) { return p == P::Query ? 'Q' : p == P::Key ? 'K' : 'V'; }
char lower(Projection p) { return p == P::Query ? 'q' : p == P::Key ? 'k' : 'v'; }

struct Slot {
    Projection slot;
    Projection source;
};

// The slots the configuration fills from another projection.
std::vector<Slot> movedSlots(const WConfiguration& c) {
    std::vector<Slot> moved;
    for (Slot s :
         {Slot{P::Query, c.querySource}, Slot{P::Key, c.keySource}, Slot{P::Value, c.valueSource}})
        if (s.slot != s.source) moved.push_back(s);
    return moved;
}

bool groupedQuery(const Architecture& a) { return a.kvHeads != a.heads; }

// Every attention block in the model: a layer's self-attention, and a decoder layer's
// cross-attention too.
// The modules with q_proj: a hybrid's softmax layers, an encoder-decoder's three kinds. Layers
// that attend over another layer's keys and values (Gemma 3n) have no k_proj in transformers:
// a configuration applies where the keys and values are computed, and only there.
int attentionBlocks(const Architecture& a) {
    int blocks = 2 * a.decoderLayers;
    for (int l = 0; l < a.layers; ++l)
        blocks += a.mixerOf(l) == Mixer::Attention && a.kindOf(l).keyValueSource < 0;
    return blocks;
}

// def projections(block): the [Q, K, V] lists of views of each weight (and bias), in place.
void writeProjections(std::ostream& out, const Architecture& a, const HfAttentionLayout& layout) {
    const std::string fused = std::string("block.") + layout.query;
    switch (layout.layout) {
        case HfProjectionLayout::Separate:
            out << "def projections(block):  # Q, K, V: views of each Linear's weight [out, in] "
                   "and bias\n"
                << "    linears = (block." << layout.query << ", block." << layout.key << ", block."
                << layout.value << ")\n"
                << "    return [[t for t in (p.weight, p.bias) if t is not None] for p in "
                   "linears]\n";
            return;
        case HfProjectionLayout::FusedColumns:
            out << "D = " << a.dModel << "  # n_embd\n\n\n"
                << "def projections(block):  # Conv1D weight [in, 3*D]: column blocks Q | K | V, "
                   "the bias likewise\n"
                << "    w, b = " << fused << ".weight, " << fused << ".bias\n"
                << "    return [[w[:, i * D:(i + 1) * D], b[i * D:(i + 1) * D]] for i in "
                   "range(3)]\n";
            return;
        case HfProjectionLayout::FusedPerHead:
            out << "HEADS, HEAD_DIM = " << a.heads << ", " << a.headDim << "\n\n\n"
                << "def projections(block):  # weight rows per head: q, k, v of head 0, then of "
                   "head 1, ...\n"
                << "    w = " << fused << ".weight.view(HEADS, 3, HEAD_DIM, -1)\n"
                << "    b = " << fused << ".bias.view(HEADS, 3, HEAD_DIM)\n"
                << "    return [[w[:, i], b[:, i]] for i in range(3)]\n";
            return;
        case HfProjectionLayout::FusedRowBlocks:
            out << "Q_ROWS, KV_ROWS = " << a.heads * a.headDim << ", " << a.kvHeads * a.headDim
                << "  # query heads * head_dim, key/value heads * head_dim\n\n\n"
                << "def projections(block):  # weight [Q_ROWS + 2 * KV_ROWS, in]: row blocks Q | "
                   "K | V\n"
                << "    w = " << fused << ".weight\n"
                << "    return [[w[:Q_ROWS]], [w[Q_ROWS:Q_ROWS + KV_ROWS]], [w[Q_ROWS + "
                   "KV_ROWS:]]]\n";
            return;
    }
}

// For a query slot filled from W_K or W_V under grouped-query attention: query head h reads
// key/value head h / group, as in the forward.
void writePerQueryHead(std::ostream& out, const Architecture& a) {
    out << "\n\nHEAD_DIM, GROUP = " << a.headDim << ", " << a.kvGroup()
        << "  # query head h reads key/value head h // GROUP\n\n\n"
        << "def per_query_head(tensors):  # each key/value head's rows, once per query head "
           "reading it\n"
        << "    return [t.reshape(-1, HEAD_DIM, *t.shape[1:]).repeat_interleave(GROUP, "
           "0).flatten(0, 1)\n"
        << "            for t in tensors]\n";
}

}  // namespace

std::vector<std::string> untranslatableParts(const WConfiguration& config, const Architecture& a) {
    std::vector<std::string> reasons;
    const char* notWeights = " changes the attention function, not the weights";
    if (config.transform == ScoreTransform::Symmetric)
        reasons.push_back(std::string("sym-scores, S := (S + S^T) / 2 before the mask,") +
                          notWeights);
    if (config.transform == ScoreTransform::Skew)
        reasons.push_back(std::string("skew-scores, S := (S - S^T) / 2 before the mask,") +
                          notWeights);
    if (config.scaleOutside)
        reasons.push_back(std::string("the 1/sqrt(d_k) scale after the softmax") + notWeights);
    if (config.maskSelf)
        reasons.push_back(std::string("masking each token's attention to itself") + notWeights);
    if (config.normalizeKeys)
        reasons.push_back(std::string("unit-length keys, k / |k|,") + notWeights);
    // transformers norms whatever q_proj and k_proj give; QKV Lab norms what W_Q and W_K give.
    if (a.qkNorm != QkNorm::None)
        for (Slot s : movedSlots(config))
            if (s.source == P::Value && s.slot != P::Value)
                reasons.push_back(std::string(1, letter(s.slot)) +
                                  " := V does not fit: transformers would put the " +
                                  (s.slot == P::Query ? "query" : "key") +
                                  " path's QK-norm on the values, which QKV Lab leaves un-normed");
    if (a.latent.present() && !movedSlots(config).empty())
        reasons.push_back(
            "multi-head latent attention has no per-head W_Q and W_K of one shape in transformers "
            "to copy into each other: queries come through q_proj (or q_a_proj, q_b_proj), keys "
            "from the latent's kv_b_proj plus one rotary key for every head");
    if ((a.outputGate || a.hasMixer(Mixer::GatedDeltaNet)) && !movedSlots(config).empty())
        reasons.push_back(
            "gated attention's q_proj holds each head's gate rows beside its query rows, and a "
            "Gated DeltaNet layer's q, k and v are blocks of one in_proj_qkv with convolution "
            "channels of their own: a copy of whole modules would carry the gates or miss the "
            "convolution");
    if (a.hasMixer(Mixer::ShortConv) && !movedSlots(config).empty())
        reasons.push_back(
            "a short convolution's B, C and x are row blocks of one in_proj, beside the attention "
            "layers' q_proj, k_proj and v_proj: a copy of whole modules would miss them");
    if ((a.hasMixer(Mixer::Mamba2) || a.besideMamba) && !movedSlots(config).empty())
        reasons.push_back(
            "a Mamba-2 layer's C, B and x are blocks of one in_proj with convolution channels and "
            "biases of their own, beside the attention layers' q_proj, k_proj and v_proj: a copy "
            "of whole modules would miss them");
    if (a.valueIsKeyLayers() > 0 && !movedSlots(config).empty())
        reasons.push_back(
            "the global layers of Gemma 4 have no v_proj: their values are k_proj's output (W_V = "
            "W_K by design), so a copy into v_proj has no place there and a copy into k_proj "
            "would change their values too");
    if (groupedQuery(a))
        for (Slot s : movedSlots(config))
            if (s.source == P::Query && s.slot != P::Query)
                reasons.push_back(std::string(1, letter(s.slot)) +
                                  " := Q does not fit: with grouped-query attention the " +
                                  (s.slot == P::Key ? "key" : "value") + " projection has " +
                                  std::to_string(a.kvHeads) + " heads for " +
                                  std::to_string(a.heads) +
                                  " query heads, and QKV Lab gives each query head its own W_Q");
    return reasons;
}

void writeRefusal(std::ostream& out, const WConfiguration& config,
                  const std::vector<std::string>& reasons) {
    out << "#\n# QKV Lab's " << config.name()
        << " cannot be reproduced by copying weights in transformers:\n";
    std::string joined;
    for (const std::string& reason : reasons) {
        out << "#   - " << reason << ".\n";
        joined += (joined.empty() ? "" : "; ") + reason;
    }
    out << "# This script stops here rather than compute something else.\n";
    out << "raise SystemExit(\"" << config.name()
        << " cannot be reproduced by copying weights in transformers: " << joined << "\")\n";
}

void writeTying(std::ostream& out, const WConfiguration& config, const Architecture& a,
                const HfAttentionLayout& layout) {
    const std::vector<Slot> moved = movedSlots(config);
    if (moved.empty()) {
        out << "# " << config.name() << ": the checkpoint's own W_Q, W_K and W_V.\n\n";
        return;
    }
    std::string assignments;
    for (Slot s : moved)
        assignments += (assignments.empty() ? "" : ", ") + std::string(1, letter(s.slot)) +
                       " := " + letter(s.source);
    out << "# " << config.name() << ": " << assignments << " in every attention block"
        << (a.isEncoderDecoder() ? " (self- and cross-attention)" : "")
        << ", weights and biases together.\n";
    writeProjections(out, a, layout);
    bool perQueryHead = false;
    for (Slot s : moved) perQueryHead |= s.slot == P::Query && groupedQuery(a);
    if (perQueryHead) writePerQueryHead(out, a);
    out << "\n\ndef assign(slot, source):  # copies into the slot's views, weight and bias alike\n"
        << "    for target, tensor in zip(slot, source):\n"
        << "        target.copy_(tensor)\n\n\n";
    const int blocks = attentionBlocks(a);
    const std::string computesKeys =
        a.sharesKeyValues() ? std::string(" and hasattr(m, \"") + layout.key + "\")" : "";
    out << "blocks = [m for m in model.modules() if hasattr(m, \"" << layout.query << "\")"
        << computesKeys << "]\n"
        << "assert len(blocks) == " << blocks << ", f\"found {len(blocks)} attention blocks, "
        << "expected " << blocks << "\"\n"
        << "with torch.no_grad():\n"
        << "    for block in blocks:\n"
        << "        q, k, v = projections(block)\n";
    bool cloned[3] = {false, false, false};
    for (Slot s : moved) {  // every source as loaded, before any slot is overwritten
        const int i = static_cast<int>(s.source);
        if (cloned[i]) continue;
        cloned[i] = true;
        out << "        learned_" << lower(s.source) << " = [t.clone() for t in " << lower(s.source)
            << "]\n";
        if (a.qkNorm != QkNorm::None && s.source != P::Value)
            out << "        learned_" << lower(s.source) << "_norm = block." << lower(s.source)
                << "_norm.weight.clone()\n";
    }
    for (Slot s : moved) {
        const std::string source = std::string("learned_") + lower(s.source);
        const bool expand = s.slot == P::Query && groupedQuery(a);
        out << "        assign(" << lower(s.slot) << ", "
            << (expand ? "per_query_head(" + source + ")" : source) << ")  # " << letter(s.slot)
            << " := " << letter(s.source) << "\n";
        // QK-norm follows its projection: a key path that is the query path has q_norm.
        if (a.qkNorm != QkNorm::None && s.slot != P::Value && s.source != P::Value)
            out << "        block." << lower(s.slot) << "_norm.weight.copy_(learned_"
                << lower(s.source) << "_norm)  # " << lower(s.slot)
                << "_norm := " << lower(s.source) << "_norm\n";
    }
    out << "\n";
}

}  // namespace qkv
