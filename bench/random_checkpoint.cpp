#include "bench/random_checkpoint.h"

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "core/train/checkpoint.h"
#include "core/util/error.h"

namespace qkv::bench {
namespace {

struct Entry {
    std::string name;
    std::vector<std::int64_t> shape;
    float stddev;  // 0: ones (norm weights)
};

std::vector<Entry> gpt2Entries(const train::ModelShape& s) {
    const std::int64_t d = s.dModel;
    std::vector<Entry> e = {{"wte.weight", {s.vocab, d}, 0.02f},
                            {"wpe.weight", {s.context, d}, 0.01f}};
    for (int l = 0; l < s.layers; ++l) {
        const std::string p = "h." + std::to_string(l) + ".";
        e.push_back({p + "ln_1.weight", {d}, 0.0f});
        e.push_back({p + "ln_1.bias", {d}, 0.02f});
        e.push_back({p + "attn.c_attn.weight", {d, 3 * d}, 0.02f});
        e.push_back({p + "attn.c_attn.bias", {3 * d}, 0.02f});
        e.push_back({p + "attn.c_proj.weight", {d, d}, 0.02f});
        e.push_back({p + "attn.c_proj.bias", {d}, 0.02f});
        e.push_back({p + "ln_2.weight", {d}, 0.0f});
        e.push_back({p + "ln_2.bias", {d}, 0.02f});
        e.push_back({p + "mlp.c_fc.weight", {d, 4 * d}, 0.02f});
        e.push_back({p + "mlp.c_fc.bias", {4 * d}, 0.02f});
        e.push_back({p + "mlp.c_proj.weight", {4 * d, d}, 0.02f});
        e.push_back({p + "mlp.c_proj.bias", {d}, 0.02f});
    }
    e.push_back({"ln_f.weight", {d}, 0.0f});
    e.push_back({"ln_f.bias", {d}, 0.02f});
    return e;
}

std::int64_t elements(const Entry& e) {
    std::int64_t n = 1;
    for (auto d : e.shape) n *= d;
    return n;
}

constexpr int kEndOfText = 50256;  // GPT-2's <|endoftext|>

}  // namespace

train::ModelShape gpt2Small() {
    train::ModelShape shape;
    shape.layers = 12;
    shape.heads = 12;
    shape.dModel = 768;
    shape.context = 1024;
    shape.vocab = 50257;
    return shape;
}

void writeRandomGpt2(const std::filesystem::path& dir, const train::ModelShape& s, unsigned seed) {
    std::filesystem::create_directories(dir);
    const auto entries = gpt2Entries(s);
    nlohmann::json header = nlohmann::json::object();
    std::uint64_t offset = 0;
    for (const auto& e : entries) {
        const std::uint64_t bytes = 4 * static_cast<std::uint64_t>(elements(e));
        header[e.name] = {
            {"dtype", "F32"}, {"shape", e.shape}, {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::string text = header.dump();
    text.resize((text.size() + 7) / 8 * 8, ' ');

    std::ofstream out(dir / "model.safetensors", std::ios::binary);
    const std::uint64_t length = text.size();
    for (int i = 0; i < 8; ++i) out.put(static_cast<char>((length >> (8 * i)) & 0xFF));
    out << text;
    std::mt19937 engine(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> chunk;
    for (const auto& e : entries) {
        chunk.resize(static_cast<size_t>(elements(e)));
        for (float& v : chunk) v = e.stddev == 0.0f ? 1.0f : e.stddev * normal(engine);
        out.write(reinterpret_cast<const char*>(chunk.data()),
                  static_cast<std::streamsize>(chunk.size() * sizeof(float)));
    }
    out.close();
    if (!out) throw Error(dir.string() + ": cannot write the benchmark checkpoint");
    train::writeConfigJson(s, kEndOfText, dir);
}

}  // namespace qkv::bench
