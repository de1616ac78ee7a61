#include "tests/real_configs/zero_checkpoint.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include "core/model/model_family.h"
#include "tests/support/fixture_writer.h"
#include "tests/support/shared_assets.h"

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

Architecture realConfigIn(const std::string& name, const std::filesystem::path& dir) {
    std::filesystem::copy_file(testDataDir() / "real-configs" / (name + ".json"),
                               dir / "config.json");
    return loadArchitecture(dir / "config.json");
}

std::string RealConfigName::nameOf(std::string name) {
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return name;
}

}  // namespace qkv::test
