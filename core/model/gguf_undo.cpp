#include "core/model/gguf_undo.h"

#include <cmath>
#include <cstring>

#include "core/format/ggml_blocks.h"
#include "core/util/error.h"

namespace qkv {

std::vector<float> ggufFloats(const TensorInfo& t) {
    std::vector<float> values(static_cast<std::size_t>(t.elementCount()));
    if (t.dtype == DType::Block)
        decodeGgmlBlocks(t.blockType, t.data, 0, values.size(), values.data());
    else
        widen(t.blockType, t.data, values.size(), values.data());
    return values;
}

void replaceWithFloats(TensorInfo& t, const std::vector<float>& values,
                       std::vector<std::int64_t> shape, GgufDerived& derived) {
    std::vector<std::uint8_t>& bytes = derived.emplace_back(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    t.dtype = DType::F32;
    t.blockType = ElementType::F32;
    t.shape = std::move(shape);
    t.data = bytes.data();
    t.byteSize = bytes.size();
}

void logOfNegated(TensorInfo& t, GgufDerived& derived) {
    std::vector<float> values = ggufFloats(t);
    for (float v : values)
        if (!(v < 0.0f))
            throw Error(t.file.string() + ": tensor " + t.describe() +
                        " holds a decay rate that is not negative, so it is no −exp(A_log)");
    // In double, so that exp of the float32 result gives the stored A back within an ulp.
    for (float& v : values) v = static_cast<float>(std::log(-static_cast<double>(v)));
    replaceWithFloats(t, values, {t.elementCount()}, derived);
}

void lessOne(TensorInfo& t, GgufDerived& derived) {
    std::vector<float> values = ggufFloats(t);
    for (float& v : values) v -= 1.0f;
    replaceWithFloats(t, values, t.shape, derived);
}

void flatten(TensorInfo& t) { t.shape = {t.elementCount()}; }

}  // namespace qkv
