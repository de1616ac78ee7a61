#include "tests/real_configs/zero_checkpoint.h"

#include <nlohmann/json.hpp>

#include "tests/support/fixture_writer.h"

namespace qkv::test {

void writeZeros(const std::filesystem::path& file, const std::vector<TensorShape>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    std::int64_t offset = 0;
    for (const TensorShape& t : tensors) {
        std::int64_t bytes = std::string(t.dtype) == "U8" ? 1 : 2;
        for (std::int64_t n : t.shape) bytes *= n;
        header[t.name] = {
            {"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    writeRawSafetensors(file, text, {});
    std::filesystem::resize_file(file, 8 + text.size() + offset);  // zeros, as a hole
}

}  // namespace qkv::test
