// A .safetensors file: the 8-byte header length, the JSON header and the tensor table, parsed
// from memory; a file that parses is then opened from disk as a TensorStore and every float
// tensor read back as float32 (F16/BF16 conversion included).
#include "core/io/safetensors.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/fuzz_target.h"

using namespace qkv;

QKV_FUZZ_TARGET(safetensors) {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(input.data());
    const SafetensorsTable table = parseSafetensors(bytes, input.size(), "model.safetensors");
    for (const auto& [name, tensor] : table.tensors) {
        FUZZ_CHECK(static_cast<std::uint64_t>(tensor.elementCount()) * dtypeSize(tensor.dtype) ==
                   tensor.byteSize);
        FUZZ_CHECK(tensor.byteSize == 0 || (tensor.data >= bytes + 8 &&
                                            tensor.data + tensor.byteSize <= bytes + input.size()));
    }

    auto store = TensorStore::openFile(fuzz::writeScratch("model.safetensors", input));
    FUZZ_CHECK(store->tensorCount() == table.tensors.size());
    for (const std::string& name : store->names()) {
        const TensorInfo& tensor = *store->find(name);
        try {
            const float* values = store->floats(tensor);
            volatile float sink = 0;
            for (std::int64_t i = 0; i < tensor.elementCount(); ++i) sink = sink + values[i];
        } catch (const Error&) {
            // Not a float dtype: asking for it as floats is refused.
        }
    }
}
