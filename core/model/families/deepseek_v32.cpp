// DeepSeek-V3.2 (deepseek_v32; keys under "model."): DeepSeek-V3's network whose latent attention
// sees only the keys its lightning indexer keeps (DeepSeek sparse attention, "DSA";
// core/model/key_indexer.h): per layer self_attn.indexer.{wq_b, wk, k_norm, weights_proj},
// index_n_heads heads of index_head_dim, the top index_topk keys per query. Its indexer rotates
// halves; GLM-5 (glm_moe_dsa.cpp) reads the same indexer with interleaved pairs. Dense and expert
// layers as mlp_layer_types names them. The Hub's multi-token prediction layer is not read.
#include <cstdint>

#include "core/model/families/binding.h"

namespace qkv::families {

void readKeyIndexer(const ConfigReader& r, Architecture& c, bool interleavedRope) {
    KeyIndexer& indexer = c.keyIndexer;
    indexer.heads = r.width("index_n_heads");
    indexer.headDim = r.width("index_head_dim");
    indexer.topK = r.positiveInt("index_topk");
    indexer.interleavedRope = interleavedRope;
    if (std::int64_t{indexer.heads} * indexer.headDim > ConfigReader::kMaxWidth)
        r.fail("\"index_n_heads\" of \"index_head_dim\" exceed the " +
               std::to_string(ConfigReader::kMaxWidth) + " width QKV Lab supports");
    if (indexer.headDim < c.latent.ropeDim)
        r.fail("\"index_head_dim\" (" + std::to_string(indexer.headDim) +
               ") is narrower than its rotary part, \"qk_rope_head_dim\" (" +
               std::to_string(c.latent.ropeDim) + ")");
    if (c.latent.queryRank == 0)
        r.fail("\"q_lora_rank\" is missing: the indexer's queries read the query latent");
    if (r.has("layer_types"))
        for (const std::string& kind : r.strings("layer_types"))
            if (kind != "deepseek_sparse_attention")
                r.fail("\"layer_types\" \"" + kind +
                       "\" is not supported (every layer is \"deepseek_sparse_attention\")");
}

namespace {

void read(const ConfigReader& r, Architecture& c) {
    readLatentMoeDecoder(r, c);
    readKeyIndexer(r, c, false);
}

}  // namespace

ModelFamily deepseekV32() {
    return {"deepseek_v32", {"deepseek_v32"}, {"model.", ""}, read, bindLatentDecoder, {"fp8"}};
}

}  // namespace qkv::families
