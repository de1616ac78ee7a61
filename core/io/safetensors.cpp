#include "core/io/safetensors.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "core/format/ggml_blocks.h"
#include "core/util/error.h"
#include "core/util/half.h"
#include "core/util/mapped_file.h"
#include "core/util/memory.h"

namespace qkv {
namespace {

using json = nlohmann::json;

struct DTypeEntry {
    const char* name;
    DType dtype;
    std::size_t size;
};

constexpr DTypeEntry kDTypes[] = {
    {"F64", DType::F64, 8},   {"F32", DType::F32, 4},        {"F16", DType::F16, 2},
    {"BF16", DType::BF16, 2}, {"I64", DType::I64, 8},        {"I32", DType::I32, 4},
    {"I16", DType::I16, 2},   {"I8", DType::I8, 1},          {"U8", DType::U8, 1},
    {"BOOL", DType::Bool, 1}, {"F8_E4M3", DType::F8E4M3, 1}, {"F8_E5M2", DType::F8E5M2, 1},
};

const DTypeEntry* dtypeByName(const std::string& name) {
    for (const auto& entry : kDTypes)
        if (name == entry.name) return &entry;
    return nullptr;
}

std::uint64_t readU64LittleEndian(const std::uint8_t* p) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

// Not allowed in a shard name: it must stay inside the model folder, and a NUL would cut the
// name short when the file is opened.
constexpr std::string_view kPathSeparatorsAndNul("/\\\0", 3);

// Multiplies with an overflow check; element counts come from untrusted headers.
bool multiplyChecked(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
    if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return false;
    out = a * b;
    return true;
}

}  // namespace

const char* dtypeName(DType dtype) {
    for (const auto& entry : kDTypes)
        if (entry.dtype == dtype) return entry.name;
    return "unknown";
}

std::size_t dtypeSize(DType dtype) {
    for (const auto& entry : kDTypes)
        if (entry.dtype == dtype) return entry.size;
    return 0;
}

std::int64_t TensorInfo::elementCount() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
}

std::string TensorInfo::describe() const {
    std::string s = name + " [";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "] " + (dtype == DType::Block ? elementTypeName(blockType) : dtypeName(dtype));
}

SafetensorsTable parseSafetensors(const std::uint8_t* bytes, std::size_t fileSize,
                                  const std::filesystem::path& path) {
    const std::string where = path.string();
    if (fileSize < 8)
        throw Error(where + ": not a safetensors file (" + std::to_string(fileSize) +
                    " bytes, shorter than the 8-byte header length)");
    const std::uint64_t headerLength = readU64LittleEndian(bytes);
    if (headerLength > fileSize - 8)
        throw Error(where + ": header length " + std::to_string(headerLength) +
                    " runs past the end of the file (" + std::to_string(fileSize) +
                    " bytes); the file is truncated or not safetensors");
    if (headerLength > SafetensorsFile::kMaxHeaderBytes)
        throw Error(where + ": header of " + std::to_string(headerLength) + " bytes exceeds the " +
                    std::to_string(SafetensorsFile::kMaxHeaderBytes) + "-byte limit");

    const char* headerBegin = reinterpret_cast<const char*>(bytes + 8);
    json header;
    try {
        header = json::parse(headerBegin, headerBegin + headerLength);
    } catch (const json::exception& e) {
        throw Error(where + ": header is not valid JSON (" + e.what() + ")");
    }
    if (!header.is_object()) throw Error(where + ": header is not a JSON object");

    const std::uint8_t* dataRegion = bytes + 8 + headerLength;
    const std::uint64_t dataSize = fileSize - 8 - headerLength;
    SafetensorsTable table;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
    std::vector<const std::string*> rangeOwners;

    for (auto it = header.begin(); it != header.end(); ++it) {
        const std::string& name = it.key();
        const json& entry = it.value();
        if (name == "__metadata__") {
            if (!entry.is_object()) throw Error(where + ": __metadata__ is not an object");
            for (auto m = entry.begin(); m != entry.end(); ++m)
                if (m.value().is_string()) table.metadata[m.key()] = m.value().get<std::string>();
            continue;
        }
        const std::string at = where + ": tensor '" + name + "'";
        if (!entry.is_object()) throw Error(at + " has no description object");
        auto dtypeIt = entry.find("dtype");
        auto shapeIt = entry.find("shape");
        auto offsetsIt = entry.find("data_offsets");
        if (dtypeIt == entry.end() || !dtypeIt->is_string())
            throw Error(at + " has no dtype string");
        if (shapeIt == entry.end() || !shapeIt->is_array()) throw Error(at + " has no shape array");
        if (offsetsIt == entry.end() || !offsetsIt->is_array() || offsetsIt->size() != 2)
            throw Error(at + " has no [begin, end] data_offsets");
        const DTypeEntry* dtype = dtypeByName(dtypeIt->get<std::string>());
        if (!dtype) throw Error(at + " has unknown dtype '" + dtypeIt->get<std::string>() + "'");

        TensorInfo info;
        info.name = name;
        info.dtype = dtype->dtype;
        info.file = path;
        std::uint64_t elements = 1;
        for (const json& d : *shapeIt) {
            if (!d.is_number_unsigned())
                throw Error(at + " has a shape entry that is not a non-negative integer");
            const std::uint64_t dim = d.get<std::uint64_t>();
            if (dim > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
                !multiplyChecked(elements, dim, elements))
                throw Error(at + " has a shape whose element count overflows");
            info.shape.push_back(static_cast<std::int64_t>(dim));
        }
        std::uint64_t expectedBytes = 0;
        if (!multiplyChecked(elements, dtype->size, expectedBytes))
            throw Error(at + " has a shape whose byte size overflows");

        const json& b = (*offsetsIt)[0];
        const json& e = (*offsetsIt)[1];
        if (!b.is_number_unsigned() || !e.is_number_unsigned())
            throw Error(at + " has data_offsets that are not non-negative integers");
        const std::uint64_t begin = b.get<std::uint64_t>();
        const std::uint64_t end = e.get<std::uint64_t>();
        if (begin > end || end > dataSize)
            throw Error(at + " has data_offsets [" + std::to_string(begin) + ", " +
                        std::to_string(end) + "] outside the " + std::to_string(dataSize) +
                        "-byte data region (file truncated?)");
        if (end - begin != expectedBytes)
            throw Error(at + " occupies " + std::to_string(end - begin) + " bytes but its shape " +
                        "and dtype need " + std::to_string(expectedBytes));
        info.data = dataRegion + begin;
        info.byteSize = static_cast<std::size_t>(expectedBytes);
        auto [pos, inserted] = table.tensors.emplace(name, std::move(info));
        ranges.emplace_back(begin, end);
        rangeOwners.push_back(&pos->first);
    }

    // Overlap check: visit non-empty ranges by start; each must begin at or after the furthest
    // end seen so far.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < ranges.size(); ++i)
        if (ranges[i].first != ranges[i].second) order.push_back(i);
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return ranges[a] < ranges[b]; });
    std::uint64_t furthestEnd = 0;
    std::size_t furthestOwner = 0;
    for (std::size_t i : order) {
        if (ranges[i].first < furthestEnd)
            throw Error(where + ": tensors '" + *rangeOwners[furthestOwner] + "' and '" +
                        *rangeOwners[i] + "' overlap in the data region");
        furthestEnd = ranges[i].second;
        furthestOwner = i;
    }
    return table;
}

SafetensorsFile::SafetensorsFile(const std::filesystem::path& path)
    : m_file(std::make_unique<MappedFile>(path)) {
    SafetensorsTable table = parseSafetensors(m_file->data(), m_file->size(), path);
    m_tensors = std::move(table.tensors);
    m_metadata = std::move(table.metadata);
}

SafetensorsFile::~SafetensorsFile() = default;

const std::filesystem::path& SafetensorsFile::path() const { return m_file->path(); }
std::size_t SafetensorsFile::fileSize() const { return m_file->size(); }
void SafetensorsFile::checkUnchanged() const { m_file->checkUnchanged(); }

std::unique_ptr<TensorStore> TensorStore::openFile(const std::filesystem::path& file) {
    std::unique_ptr<TensorStore> store(new TensorStore());
    store->m_files.push_back(std::make_unique<SafetensorsFile>(file));
    for (const auto& [name, info] : store->m_files.back()->tensors()) store->m_index[name] = &info;
    return store;
}

std::unique_ptr<TensorStore> TensorStore::openFolder(const std::filesystem::path& dir) {
    const auto single = dir / "model.safetensors";
    const auto indexPath = dir / "model.safetensors.index.json";
    std::error_code ec;
    if (std::filesystem::exists(single, ec)) return openFile(single);
    if (!std::filesystem::exists(indexPath, ec)) {
        if (std::filesystem::exists(dir / "pytorch_model.bin", ec))
            throw Error(dir.string() +
                        ": only pytorch_model.bin found; QKV Lab reads safetensors "
                        "only (pickle files can run code). Convert it with "
                        "transformers' save_pretrained(safe_serialization=True)");
        throw Error(dir.string() + ": no model.safetensors or model.safetensors.index.json");
    }

    MappedFile indexFile(indexPath);
    if (indexFile.size() > SafetensorsFile::kMaxHeaderBytes)
        throw Error(indexPath.string() + ": " + std::to_string(indexFile.size()) +
                    " bytes exceeds the " + std::to_string(SafetensorsFile::kMaxHeaderBytes) +
                    "-byte limit for an index");
    const auto weightMap = parseShardIndex(
        std::string_view(reinterpret_cast<const char*>(indexFile.data()), indexFile.size()),
        indexPath);

    std::unique_ptr<TensorStore> store(new TensorStore());
    std::map<std::string, SafetensorsFile*> shards;
    for (const auto& [tensorName, shardName] : weightMap) {
        auto shard = shards.find(shardName);
        if (shard == shards.end()) {
            store->m_files.push_back(std::make_unique<SafetensorsFile>(dir / shardName));
            shard = shards.emplace(shardName, store->m_files.back().get()).first;
        }
        auto tensor = shard->second->tensors().find(tensorName);
        if (tensor == shard->second->tensors().end())
            throw Error(indexPath.string() + ": tensor '" + tensorName + "' is listed in shard '" +
                        shardName + "' but that file does not contain it");
        store->m_index[tensorName] = &tensor->second;
    }
    return store;
}

std::map<std::string, std::string> parseShardIndex(std::string_view text,
                                                   const std::filesystem::path& path) {
    json index;
    try {
        index = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {
        throw Error(path.string() + ": not valid JSON (" + e.what() + ")");
    }
    auto weightMap = index.is_object() ? index.find("weight_map") : index.end();
    if (!index.is_object() || weightMap == index.end() || !weightMap->is_object())
        throw Error(path.string() + ": no \"weight_map\" object");
    std::map<std::string, std::string> shards;
    for (auto it = weightMap->begin(); it != weightMap->end(); ++it) {
        if (!it.value().is_string())
            throw Error(path.string() + ": weight_map entry '" + it.key() + "' is not a file name");
        const std::string shardName = it.value().get<std::string>();
        if (shardName.empty() || shardName == "." || shardName == ".." ||
            shardName.find_first_of(kPathSeparatorsAndNul) != std::string::npos)
            throw Error(path.string() + ": shard name '" + shardName +
                        "' is not a plain file name in the model folder");
        shards.emplace(it.key(), shardName);
    }
    return shards;
}

TensorStore::~TensorStore() = default;

const TensorInfo* TensorStore::find(const std::string& name) const {
    auto it = m_index.find(name);
    return it == m_index.end() ? nullptr : it->second;
}

std::vector<std::string> TensorStore::names() const {
    std::vector<std::string> out;
    out.reserve(m_index.size());
    for (const auto& [name, info] : m_index) out.push_back(name);
    return out;
}

std::uint64_t TensorStore::totalBytes() const {
    std::uint64_t total = 0;
    for (const auto& [name, info] : m_index) total += info->byteSize;
    return total;
}

namespace {

bool needsConversion(const TensorInfo& tensor) {
    const bool aligned = reinterpret_cast<std::uintptr_t>(tensor.data) % alignof(float) == 0;
    return (tensor.dtype == DType::F32 && !aligned) || tensor.dtype == DType::F16 ||
           tensor.dtype == DType::BF16;
}

}  // namespace

void TensorStore::checkUnchanged() const {
    for (const auto& file : m_files) file->checkUnchanged();
    if (m_source) m_source->checkUnchanged();
}

std::unique_ptr<TensorStore> TensorStore::fromTensors(std::unique_ptr<TensorSource> source,
                                                      std::vector<TensorInfo> tensors) {
    std::unique_ptr<TensorStore> store(new TensorStore());
    store->m_source = std::move(source);
    store->m_adopted = std::move(tensors);
    for (const TensorInfo& t : store->m_adopted)
        if (!store->m_index.emplace(t.name, &t).second)
            throw Error(t.file.string() + ": tensor '" + t.name + "' appears twice");
    return store;
}

const float* TensorStore::floats(const TensorInfo& tensor) {
    if (tensor.dtype == DType::F32 && !needsConversion(tensor))
        return reinterpret_cast<const float*>(tensor.data);
    if (tensor.dtype != DType::F32 && tensor.dtype != DType::F16 && tensor.dtype != DType::BF16 &&
        tensor.dtype != DType::Block)
        throw Error(tensor.file.string() + ": tensor '" + tensor.name + "' has dtype " +
                    dtypeName(tensor.dtype) + "; only F32, F16 and BF16 weights are supported");
    auto cached = m_converted.find(&tensor);
    if (cached != m_converted.end()) return cached->second.get();

    const std::size_t n = static_cast<std::size_t>(tensor.elementCount());
    requireMemory(n * sizeof(float), tensor.file.string() + ": tensor '" + tensor.name + "'",
                  "as float32");
    auto out = std::make_unique<float[]>(n);
    if (tensor.dtype == DType::F32) {
        std::memcpy(out.get(), tensor.data, n * sizeof(float));
    } else if (tensor.dtype == DType::Block) {
        decodeGgmlBlocks(tensor.blockType, tensor.data, 0, n, out.get());
    } else {
        for (std::size_t i = 0; i < n; ++i) {
            std::uint16_t h;
            std::memcpy(&h, tensor.data + 2 * i, 2);
            out[i] = tensor.dtype == DType::F16 ? f16ToFloat(h) : bf16ToFloat(h);
        }
    }
    const float* p = out.get();
    m_converted.emplace(&tensor, std::move(out));
    return p;
}

}  // namespace qkv
