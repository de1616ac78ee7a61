#include "core/model/gguf_checkpoint.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <utility>

#include "core/format/ggml_blocks.h"
#include "core/io/gguf.h"
#include "core/model/gguf_config.h"
#include "core/model/gguf_model_reader.h"
#include "core/model/gguf_tensor_names.h"
#include "core/model/gguf_tokenizer.h"
#include "core/model/gguf_undo.h"
#include "core/model/model_family.h"
#include "core/util/error.h"

namespace qkv {
namespace {

// The files (one, or a split model's shards) and the tensors derived from them (norms less one,
// DeepSeek's key/value projection put back together).
class GgufSource : public TensorSource {
  public:
    void checkUnchanged() const override {
        for (const auto& file : files) file->checkUnchanged();
    }
    std::vector<std::unique_ptr<GgufFile>> files;  // the first holds the metadata
    GgufDerived derived;
};

// llama.cpp's gguf-split names a split model's shards NAME-00001-of-00003.gguf: the first holds
// the metadata, each a share of the tensors. Any shard names them all; a lone file is itself.
std::vector<std::filesystem::path> shardsOf(const std::filesystem::path& path) {
    static const std::regex kShard(R"((.*)-(\d{5})-of-(\d{5})\.gguf)");
    const std::string name = path.filename().string();
    std::smatch m;
    if (!std::regex_match(name, m, kShard)) return {path};
    const int count = std::stoi(m[3].str());
    if (count < 1 || std::stoi(m[2].str()) > count)
        throw Error(path.string() + ": not a shard of a split GGUF model (" + m[2].str() + " of " +
                    m[3].str() + ")");
    std::vector<std::filesystem::path> shards;
    for (int i = 1; i <= count; ++i) {
        char number[12];  // room for any int, so the compiler sees no truncation
        std::snprintf(number, sizeof number, "%05d", i);
        shards.push_back(path.parent_path() /
                         (m[1].str() + "-" + number + "-of-" + m[3].str() + ".gguf"));
        std::error_code ec;
        if (!std::filesystem::is_regular_file(shards.back(), ec))
            throw Error(shards.back().string() + ": this shard of the split model " + name +
                        " belongs to is missing");
    }
    return shards;
}

// Llama's converter interleaved each head's rows of W_Q and W_K (GGUF row 2i + j of a head is
// Hugging Face's row j·d/2 + i) so that ggml's adjacent-pair rotary equals rotate-half. The rows
// stay where they are (an 8B model's 377 MB are not copied); the products gather their outputs
// back into Hugging Face's order (TensorInfo::rowOrder).
std::vector<int> ggmlRotaryRowOrder(std::int64_t rows, std::int64_t heads) {
    const std::int64_t headDim = rows / heads, half = headDim / 2;
    std::vector<int> order(static_cast<std::size_t>(rows));
    for (std::int64_t h = 0; h < heads; ++h)
        for (std::int64_t j = 0; j < 2; ++j)
            for (std::int64_t i = 0; i < half; ++i)
                order[h * headDim + j * half + i] = static_cast<int>(h * headDim + 2 * i + j);
    return order;
}

// llama.cpp stacks a layer's experts in one tensor, ne = [in, out, experts]; transformers keeps
// one matrix per expert. Each expert's slice is whole rows of blocks, viewed in place.
void splitExperts(const GgufModelReader& r, const GgufTensor& g, TensorInfo stacked,
                  std::vector<TensorInfo>& infos) {
    const std::int64_t experts = stacked.shape.size() == 3 ? stacked.shape[0] : 0;
    if (experts < 1 || stacked.byteSize % static_cast<std::size_t>(experts) != 0)
        r.fail("tensor " + g.describe() + " is not a stack of experts' matrices");
    const std::size_t bytes = stacked.byteSize / static_cast<std::size_t>(experts);
    const std::size_t star = stacked.name.find('*');
    for (std::int64_t e = 0; e < experts; ++e) {
        TensorInfo one = stacked;
        one.name.replace(star, 1, std::to_string(e));
        one.shape = {stacked.shape[1], stacked.shape[2]};
        one.data = stacked.data + static_cast<std::size_t>(e) * bytes;
        one.byteSize = bytes;
        infos.push_back(std::move(one));
    }
}

// Newer converters split DeepSeek's kv_b_proj for llama.cpp's absorbed attention: k_b holds each
// head's key rows transposed (shape [heads, kv_lora_rank, nope]), v_b its value rows ([heads,
// value, kv_lora_rank]). Hugging Face's kv_b_proj, [heads·(nope + value), kv_lora_rank], is put
// back together in float32 whatever the two are stored in: a transposed block format cannot be
// viewed in place, and the two are about 2 % of a DeepSeek model's weights.
TensorInfo keyValueUpOf(const GgufModelReader& r, const TensorInfo& keys, const TensorInfo& values,
                        GgufSource& source) {
    const bool shaped = keys.shape.size() == 3 && values.shape.size() == 3 &&
                        keys.shape[0] == values.shape[0] && keys.shape[1] == values.shape[2];
    if (!shaped)
        r.fail("tensors " + keys.describe() + " and " + values.describe() +
               " are not the halves of one latent key/value projection");
    const std::int64_t heads = keys.shape[0], rank = keys.shape[1], nope = keys.shape[2],
                       width = values.shape[1];
    const std::vector<float> k = ggufFloats(keys), v = ggufFloats(values);
    std::vector<std::uint8_t>& bytes =
        source.derived.emplace_back(heads * (nope + width) * rank * sizeof(float));
    auto* out = reinterpret_cast<float*>(bytes.data());
    for (std::int64_t h = 0; h < heads; ++h) {
        float* head = out + h * (nope + width) * rank;
        for (std::int64_t i = 0; i < nope; ++i)
            for (std::int64_t c = 0; c < rank; ++c)
                head[i * rank + c] = k[(h * rank + c) * nope + i];
        std::copy_n(v.data() + h * width * rank, width * rank, head + nope * rank);
    }
    TensorInfo merged = keys;
    merged.name.replace(merged.name.find("k_b_proj"), 8, "kv_b_proj");
    merged.dtype = DType::F32;
    merged.blockType = ElementType::F32;
    merged.shape = {heads * (nope + width), rank};
    merged.data = bytes.data();
    merged.byteSize = bytes.size();
    return merged;
}

}  // namespace

GgufCheckpoint openGgufCheckpoint(const std::filesystem::path& path) {
    auto source = std::make_unique<GgufSource>();
    std::map<std::string, const GgufTensor*> tensors;
    std::map<const GgufTensor*, std::filesystem::path> shardOf;
    for (const std::filesystem::path& shard : shardsOf(path)) {
        const GgufFile& f = *source->files.emplace_back(std::make_unique<GgufFile>(shard));
        for (const auto& [name, t] : f.table().tensors) {
            if (!tensors.emplace(name, &t).second)
                throw Error(shard.string() + ": tensor " + name + " is in two shards");
            shardOf[&t] = shard;
        }
    }
    const GgufFile& file = *source->files.front();
    const auto arch = file.string("general.architecture");
    if (!arch)
        throw Error(file.path().string() + ": GGUF metadata general.architecture is missing");
    GgufModelReader r{file, *arch};
    const auto embedding = tensors.find("token_embd.weight");
    if (embedding == tensors.end()) r.fail("no token_embd.weight tensor");
    if (embedding->second->ne.size() != 2)
        r.fail(embedding->second->describe() + " is not a matrix");
    const auto vocab = static_cast<std::int64_t>(embedding->second->ne[1]);
    const bool tied = !tensors.count("output.weight");
    nlohmann::json config = configFromGguf(r, vocab, tied, tensors);
    const std::string modelType = config["model_type"];
    const std::int64_t heads = config["num_attention_heads"];
    const std::int64_t kvHeads = config["num_key_value_heads"];

    const ModelFamily* family = findFamily(modelType);
    if (!family) r.fail("internal error: no family reads model_type \"" + modelType + "\"");
    const GgufLayout& layout = family->gguf;
    const bool interleaved = layout.interleavedQk;
    std::vector<TensorInfo> infos;
    std::map<std::string, TensorInfo> latentHalves;  // DeepSeek's k_b and v_b, by name
    for (const auto& [name, tensor] : tensors) {
        const GgufTensor& g = *tensor;
        TensorInfo t;
        t.name = huggingFaceTensorName(layout, name);
        if (t.name.empty())
            r.fail("tensor " + g.describe() + " is not one QKV Lab reads for " + *arch);
        const auto element = elementTypeOfGgml(g.ggmlType);
        if (!element)
            r.fail(
                "tensor " + g.describe() + ": ggml type " + ggmlTypeName(g.ggmlType) +
                " is not supported (QKV Lab decodes F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, MXFP4, "
                "Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL and IQ4_XS)");
        t.dtype = *element == ElementType::F32    ? DType::F32
                  : *element == ElementType::F16  ? DType::F16
                  : *element == ElementType::BF16 ? DType::BF16
                                                  : DType::Block;
        t.blockType = *element;
        for (auto d = g.ne.rbegin(); d != g.ne.rend(); ++d)
            t.shape.push_back(static_cast<std::int64_t>(*d));
        t.data = g.data;
        t.byteSize = g.byteSize;
        t.file = shardOf[tensor];
        const bool norm = name.find("norm.weight") != std::string::npos;
        const bool query = name.find(".attn_q.") != std::string::npos;
        const bool key = name.find(".attn_k.") != std::string::npos;
        if (interleaved && (query || key) && t.shape.size() == 2) {
            const std::int64_t n = query ? heads : kvHeads;
            if (n < 1 || t.shape[0] % n != 0 || t.shape[0] / n % 2 != 0)
                r.fail("tensor " + g.describe() + ": its " + std::to_string(t.shape[0]) +
                       " rows are not " + std::to_string(n) + " heads of an even width");
            t.rowOrder = ggmlRotaryRowOrder(t.shape[0], n);
        } else if (interleaved && (query || key)) {
            r.fail("tensor " + g.describe() + ": biases of interleaved q and k are not read yet");
        } else if (layout.normsStoredPlusOne && norm && t.dtype == DType::F32) {
            lessOne(t, source->derived);  // Gemma's binder adds the one back
        }
        if (layout.undo) layout.undo(config, t, source->derived);
        if (t.name.find(".experts.*.") != std::string::npos)
            splitExperts(r, g, std::move(t), infos);
        else if (t.name.find(".k_b_proj.") != std::string::npos ||
                 t.name.find(".v_b_proj.") != std::string::npos)
            latentHalves.emplace(t.name, std::move(t));
        else
            infos.push_back(std::move(t));
    }
    std::size_t merged = 0;
    for (const auto& [name, keys] : latentHalves) {
        if (name.find(".k_b_proj.") == std::string::npos) continue;
        std::string valueName = name;
        valueName.replace(valueName.find("k_b_proj"), 8, "v_b_proj");
        const auto values = latentHalves.find(valueName);
        if (values == latentHalves.end())
            r.fail("the file has " + keys.describe() + " without its value half (attn_v_b)");
        infos.push_back(keyValueUpOf(r, keys, values->second, *source));
        ++merged;
    }
    if (latentHalves.size() != 2 * merged)
        r.fail(
            "the file has a value half of a latent key/value projection (attn_v_b) without "
            "its key half (attn_k_b)");
    std::map<std::string, int> counts;
    for (const auto& [name, g] : tensors) ++counts[ggmlTypeName(g->ggmlType)];
    std::vector<std::pair<int, std::string>> byCount;
    for (const auto& [type, count] : counts) byCount.emplace_back(-count, type);
    std::sort(byCount.begin(), byCount.end());
    GgufCheckpoint out;
    out.formats = "GGUF:";
    for (const auto& [count, type] : byCount)
        out.formats += (&type == &byCount.front().second ? " " : ", ") + type + " " +
                       std::to_string(-count) +
                       (&type == &byCount.front().second ? " tensors" : "");
    out.configJson = config.dump();
    try {
        out.tokenizer = ggufTokenizer(file);
    } catch (const Error& e) {
        out.tokenizerError = path.string() + ": " + e.what();
    }
    out.store = TensorStore::fromTensors(std::move(source), std::move(infos));
    return out;
}

}  // namespace qkv
