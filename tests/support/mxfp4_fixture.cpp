#include "tests/support/mxfp4_fixture.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/io/safetensors.h"
#include "tests/support/fixture_writer.h"

namespace qkv::test {
namespace {

constexpr double kE2M1[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};

// The E2M1 code (0-7) nearest to |x| (x already divided by the block's scale); a tie goes to the
// even code; beyond 6 saturates.
int nearestCode(double magnitude) {
    int best = 0;
    for (int code = 1; code < 8; ++code) {
        const double gap = std::fabs(magnitude - kE2M1[code]);
        const double bestGap = std::fabs(magnitude - kE2M1[best]);
        if (gap < bestGap || (gap == bestGap && code % 2 == 0)) best = code;
    }
    return best;
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Tensors appended to one safetensors file: float32 ones first, then bytes.
struct FileBuilder {
    nlohmann::json header = nlohmann::json::object();
    std::vector<std::uint8_t> data;

    void add(const std::string& name, const char* dtype, const std::vector<std::int64_t>& shape,
             const void* bytes, size_t size) {
        const size_t begin = data.size();
        data.resize(begin + size);
        std::memcpy(data.data() + begin, bytes, size);
        header[name] = {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {begin, data.size()}}};
    }
    void write(const std::filesystem::path& file) const {
        std::string text = header.dump();
        text.append((8 - text.size() % 8) % 8, ' ');
        writeRawSafetensors(file, text, data);
    }
};

}  // namespace

Mxfp4Block quantiseMxfp4Block(const float* values) {
    Mxfp4Block block;
    double largest = 0.0;
    for (int i = 0; i < 32; ++i) largest = std::max(largest, std::fabs(double{values[i]}));
    const int exponent = largest > 0.0 ? static_cast<int>(std::floor(std::log2(largest))) - 2 : 0;
    block.scale = static_cast<std::uint8_t>(exponent + 127);
    const double unit = std::ldexp(1.0, exponent);
    for (int i = 0; i < 32; ++i) {
        const int code = nearestCode(std::fabs(values[i] / unit));
        const bool negative = std::signbit(values[i]);
        const int nibble = (negative ? 8 : 0) | code;
        block.bytes[i / 2] |= static_cast<std::uint8_t>(i % 2 == 0 ? nibble : nibble << 4);
        block.values[i] = static_cast<float>((negative ? -1.0 : 1.0) * kE2M1[code] * unit);
    }
    return block;
}

void writeMxfp4Twins(const std::filesystem::path& source, const std::filesystem::path& mxfp4Dir,
                     const std::filesystem::path& dequantisedDir) {
    auto store = TensorStore::openFolder(source);
    FileBuilder packed, dequantised;
    std::vector<std::string> experts;
    for (const std::string& name : store->names()) {
        const TensorInfo& info = *store->find(name);
        const float* values = store->floats(info);
        const size_t bytes = sizeof(float) * static_cast<size_t>(info.elementCount());
        if (endsWith(name, "mlp.experts.gate_up_proj") || endsWith(name, "mlp.experts.down_proj")) {
            experts.push_back(name);
            continue;
        }
        packed.add(name, "F32", info.shape, values, bytes);
        dequantised.add(name, "F32", info.shape, values, bytes);
    }
    for (const std::string& name : experts) {  // after the float32 tensors: they stay aligned
        const TensorInfo& info = *store->find(name);
        const float* values = store->floats(info);
        const std::int64_t count = info.shape[0], in = info.shape[1], out = info.shape[2];
        std::vector<std::uint8_t> blocks, scales;
        std::vector<float> stood(values, values + info.elementCount());
        for (std::int64_t e = 0; e < count; ++e)
            for (std::int64_t j = 0; j < out; ++j)
                for (std::int64_t first = 0; first < in; first += 32) {
                    float column[32];
                    for (int i = 0; i < 32; ++i) column[i] = values[(e * in + first + i) * out + j];
                    const Mxfp4Block block = quantiseMxfp4Block(column);
                    scales.push_back(block.scale);
                    blocks.insert(blocks.end(), block.bytes.begin(), block.bytes.end());
                    for (int i = 0; i < 32; ++i)
                        stood[(e * in + first + i) * out + j] = block.values[i];
                }
        dequantised.add(name, "F32", info.shape, stood.data(), sizeof(float) * stood.size());
        packed.add(name + "_blocks", "U8", {count, out, in / 32, 16}, blocks.data(), blocks.size());
        packed.add(name + "_scales", "U8", {count, out, in / 32}, scales.data(), scales.size());
    }
    packed.write(mxfp4Dir / "model.safetensors");
    dequantised.write(dequantisedDir / "model.safetensors");

    std::ifstream in(source / "config.json");
    nlohmann::json config = nlohmann::json::parse(in);
    std::ofstream(dequantisedDir / "config.json") << config.dump(2);
    config["quantization_config"] = {{"quant_method", "mxfp4"},
                                     {"modules_to_not_convert",
                                      {"model.layers.*.self_attn", "model.layers.*.mlp.router",
                                       "model.embed_tokens", "lm_head"}}};
    std::ofstream(mxfp4Dir / "config.json") << config.dump(2);
}

}  // namespace qkv::test
