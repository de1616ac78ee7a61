// A .gguf file: header, metadata of every value type, tensor infos, alignment and offsets,
// parsed from memory; every tensor of a type QKV Lab decodes is then decoded (its first blocks),
// and a file that parses is opened from disk as a checkpoint (the metadata read as a model's
// description, the tensors renamed), which may refuse it but must not crash.
#include <algorithm>
#include <vector>

#include "core/format/ggml_blocks.h"
#include "core/io/gguf.h"
#include "core/model/gguf_checkpoint.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/fuzz_target.h"

using namespace qkv;

QKV_FUZZ_TARGET(gguf) {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(input.data());
    const GgufTable table = parseGguf(bytes, input.size(), "model.gguf");
    std::vector<float> decoded(1024);
    for (const auto& [name, tensor] : table.tensors) {
        FUZZ_CHECK(tensor.data >= bytes && tensor.data + tensor.byteSize <= bytes + input.size());
        const auto type = elementTypeOfGgml(tensor.ggmlType);
        if (!type || !isGgmlBlockType(*type)) continue;
        const std::size_t count = static_cast<std::size_t>(
            std::min<std::uint64_t>(tensor.elementCount(), decoded.size()));
        decodeGgmlBlocks(*type, tensor.data, 0, count, decoded.data());
    }
    openGgufCheckpoint(fuzz::writeScratch("model.gguf", input));
}
