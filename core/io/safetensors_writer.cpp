#include "core/io/safetensors_writer.h"

#include <algorithm>
#include <bit>
#include <nlohmann/json.hpp>

#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace qkv {

static_assert(std::endian::native == std::endian::little,
              "safetensors stores little-endian data; this writer copies memory as is");

void writeSafetensors(const std::filesystem::path& file, const std::vector<TensorToWrite>& tensors,
                      const std::map<std::string, std::string>& metadata) {
    std::vector<const TensorToWrite*> sorted;
    for (const auto& t : tensors) sorted.push_back(&t);
    std::sort(sorted.begin(), sorted.end(),
              [](const TensorToWrite* a, const TensorToWrite* b) { return a->name < b->name; });

    // nlohmann::json keeps object keys sorted, and "__metadata__" sorts before lower-case names;
    // ordered_json states the order explicitly instead of relying on that.
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    std::vector<std::uint64_t> bytes;
    std::uint64_t offset = 0;
    for (size_t i = 0; i < sorted.size(); ++i) {
        const TensorToWrite& t = *sorted[i];
        if (t.name.empty() || t.name == "__metadata__")
            throw Error(file.string() + ": invalid tensor name '" + t.name + "'");
        if (i > 0 && sorted[i - 1]->name == t.name)
            throw Error(file.string() + ": tensor '" + t.name + "' given twice");
        std::uint64_t count = 1;
        for (std::int64_t d : t.shape) {
            if (d < 0)
                throw Error(file.string() + ": tensor '" + t.name + "' has a negative dimension");
            count *= static_cast<std::uint64_t>(d);
        }
        if (count > 0 && !t.data)
            throw Error(file.string() + ": tensor '" + t.name + "' has no data");
        bytes.push_back(count * sizeof(float));
        header[t.name] = {{"dtype", "F32"},
                          {"shape", t.shape},
                          {"data_offsets", {offset, offset + bytes.back()}}};
        offset += bytes.back();
    }
    std::string text = header.dump();
    text.resize((text.size() + 7) / 8 * 8, ' ');

    writeFileAtomically(file, [&](std::ostream& out) {
        const std::uint64_t length = text.size();
        out.write(reinterpret_cast<const char*>(&length), sizeof length);
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        for (size_t i = 0; i < sorted.size(); ++i)
            if (bytes[i] > 0)
                out.write(reinterpret_cast<const char*>(sorted[i]->data),
                          static_cast<std::streamsize>(bytes[i]));
    });
}

}  // namespace qkv
