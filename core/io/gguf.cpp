#include "core/io/gguf.h"

#include <algorithm>
#include <cstring>
#include <fstream>

#include "core/format/ggml_blocks.h"
#include "core/util/error.h"
#include "core/util/mapped_file.h"

namespace qkv {
namespace {

constexpr std::uint32_t kMagic = 0x46554747;  // "GGUF", little-endian
// Far above any real file (llama.cpp's largest hold some 3,000 tensors and a 260k vocabulary),
// so that a hostile count fails fast instead of reserving memory.
constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 24;
constexpr std::uint64_t kMaxDims = 4;

struct GgmlType {
    std::uint32_t id;
    const char* name;
    std::optional<ElementType> element;  // how QKV Lab reads it; none: refused by name
    std::uint64_t blockElements, blockBytes;
};

// ggml's type ids (ggml.h); the block sizes of the types QKV Lab does not decode are listed so
// that their files are still measured and their names given.
const std::vector<GgmlType>& ggmlTypes() {
    using E = ElementType;
    static const std::vector<GgmlType> types = {
        {0, "F32", E::F32, 1, 4},
        {1, "F16", E::F16, 1, 2},
        {2, "Q4_0", E::Q4_0, 32, 18},
        {3, "Q4_1", E::Q4_1, 32, 20},
        {6, "Q5_0", E::Q5_0, 32, 22},
        {7, "Q5_1", E::Q5_1, 32, 24},
        {8, "Q8_0", E::Q8_0, 32, 34},
        {9, "Q8_1", std::nullopt, 32, 36},
        {10, "Q2_K", E::Q2_K, 256, 84},
        {11, "Q3_K", E::Q3_K, 256, 110},
        {12, "Q4_K", E::Q4_K, 256, 144},
        {13, "Q5_K", E::Q5_K, 256, 176},
        {14, "Q6_K", E::Q6_K, 256, 210},
        {15, "Q8_K", std::nullopt, 256, 292},
        {16, "IQ2_XXS", std::nullopt, 256, 66},
        {17, "IQ2_XS", std::nullopt, 256, 74},
        {18, "IQ3_XXS", std::nullopt, 256, 98},
        {19, "IQ1_S", std::nullopt, 256, 50},
        {20, "IQ4_NL", E::IQ4_NL, 32, 18},
        {21, "IQ3_S", std::nullopt, 256, 110},
        {22, "IQ2_S", std::nullopt, 256, 82},
        {23, "IQ4_XS", E::IQ4_XS, 256, 136},
        {24, "I8", std::nullopt, 1, 1},
        {25, "I16", std::nullopt, 1, 2},
        {26, "I32", std::nullopt, 1, 4},
        {27, "I64", std::nullopt, 1, 8},
        {28, "F64", std::nullopt, 1, 8},
        {29, "IQ1_M", std::nullopt, 256, 56},
        {30, "BF16", E::BF16, 1, 2},
        {34, "TQ1_0", std::nullopt, 256, 54},
        {35, "TQ2_0", std::nullopt, 256, 66},
        {39, "MXFP4", E::Mxfp4Blocks, 32, 17},
    };
    return types;
}

const GgmlType* findType(std::uint32_t id) {
    for (const GgmlType& t : ggmlTypes())
        if (t.id == id) return &t;
    return nullptr;
}

// Bounds-checked little-endian reads through the header.
class Cursor {
  public:
    Cursor(const std::uint8_t* bytes, std::size_t size, const std::filesystem::path& path)
        : m_bytes(bytes), m_size(size), m_path(path) {}

    template <typename T>
    T read(const char* what) {
        need(sizeof(T), what);
        T value;
        std::memcpy(&value, m_bytes + m_at, sizeof value);
        m_at += sizeof value;
        return value;
    }
    std::string string(const char* what) {
        const std::uint64_t length = read<std::uint64_t>(what);
        need(length, what);
        std::string s(reinterpret_cast<const char*>(m_bytes + m_at), length);
        m_at += length;
        return s;
    }
    std::uint64_t count(const char* what) {
        const std::uint64_t n = read<std::uint64_t>(what);
        if (n > kMaxCount) fail(std::string(what) + " of " + std::to_string(n) + " is too large");
        return n;
    }
    std::size_t offset() const { return m_at; }
    [[noreturn]] void fail(const std::string& message) const {
        throw Error(m_path.string() + ": not a valid GGUF file: " + message);
    }

  private:
    void need(std::uint64_t bytes, const char* what) const {
        if (bytes > m_size - m_at)
            fail(std::string("truncated at byte ") + std::to_string(m_at) + " (reading " + what +
                 ")");
    }
    const std::uint8_t* m_bytes;
    std::size_t m_size;
    std::size_t m_at = 0;
    const std::filesystem::path& m_path;
};

GgufValue readValue(Cursor& in, std::uint32_t type, int depth) {
    switch (type) {
        case 0:
            return {std::uint64_t{in.read<std::uint8_t>("a uint8")}};
        case 1:
            return {std::int64_t{in.read<std::int8_t>("an int8")}};
        case 2:
            return {std::uint64_t{in.read<std::uint16_t>("a uint16")}};
        case 3:
            return {std::int64_t{in.read<std::int16_t>("an int16")}};
        case 4:
            return {std::uint64_t{in.read<std::uint32_t>("a uint32")}};
        case 5:
            return {std::int64_t{in.read<std::int32_t>("an int32")}};
        case 6:
            return {double{in.read<float>("a float32")}};
        case 7: {
            const std::uint8_t b = in.read<std::uint8_t>("a bool");
            if (b > 1) in.fail("a bool of value " + std::to_string(b));
            return {b == 1};
        }
        case 8:
            return {in.string("a string")};
        case 9: {
            if (depth > 0) in.fail("an array nested in an array");
            const auto elementType = in.read<std::uint32_t>("an array's element type");
            const std::uint64_t n = in.count("an array's length");
            GgufArray items;
            items.reserve(n);
            for (std::uint64_t i = 0; i < n; ++i) items.push_back(readValue(in, elementType, 1));
            return {std::move(items)};
        }
        case 10:
            return {in.read<std::uint64_t>("a uint64")};
        case 11:
            return {in.read<std::int64_t>("an int64")};
        case 12:
            return {in.read<double>("a float64")};
        default:
            in.fail("unknown metadata value type " + std::to_string(type));
    }
}

// A tensor's size in bytes, or nullopt for shapes the type cannot hold (empty, a row that is not
// whole blocks, over a terabyte).
std::optional<std::uint64_t> tensorBytes(const GgmlType& t, const std::vector<std::uint64_t>& ne) {
    constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 40;
    if (ne[0] == 0 || ne[0] > kMaxBytes || ne[0] % t.blockElements != 0) return std::nullopt;
    std::uint64_t rows = 1;
    for (size_t i = 1; i < ne.size(); ++i) {
        if (ne[i] == 0 || rows > kMaxBytes / ne[i]) return std::nullopt;
        rows *= ne[i];
    }
    const std::uint64_t rowBytes = ne[0] / t.blockElements * t.blockBytes;
    if (rowBytes > kMaxBytes / rows) return std::nullopt;
    return rowBytes * rows;
}

}  // namespace

std::uint64_t GgufTensor::elementCount() const {
    std::uint64_t n = 1;
    for (std::uint64_t d : ne) n *= d;
    return n;
}

std::string GgufTensor::describe() const {
    std::string dims;
    for (std::uint64_t d : ne) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    return name + " [" + dims + "] " + ggmlTypeName(ggmlType);
}

std::string ggmlTypeName(std::uint32_t type) {
    const GgmlType* t = findType(type);
    return t ? t->name : "type " + std::to_string(type);
}

std::optional<ElementType> elementTypeOfGgml(std::uint32_t type) {
    const GgmlType* t = findType(type);
    return t ? t->element : std::nullopt;
}

GgufTable parseGguf(const std::uint8_t* bytes, std::size_t size,
                    const std::filesystem::path& path) {
    Cursor in(bytes, size, path);
    if (size < 4 || in.read<std::uint32_t>("the magic") != kMagic)
        in.fail("it does not start with \"GGUF\"");
    GgufTable table;
    table.version = in.read<std::uint32_t>("the version");
    if (table.version != 2 && table.version != 3)
        in.fail("version " + std::to_string(table.version) +
                " (QKV Lab reads GGUF versions 2 and 3)");
    const std::uint64_t tensorCount = in.count("the tensor count");
    const std::uint64_t metadataCount = in.count("the metadata count");
    for (std::uint64_t i = 0; i < metadataCount; ++i) {
        std::string key = in.string("a metadata key");
        const auto type = in.read<std::uint32_t>("a metadata value type");
        GgufValue value = readValue(in, type, 0);
        if (!table.metadata.emplace(std::move(key), std::move(value)).second)
            in.fail("a metadata key appears twice");
    }
    std::uint64_t alignment = 32;
    if (auto found = table.metadata.find("general.alignment"); found != table.metadata.end()) {
        const auto* a = std::get_if<std::uint64_t>(&found->second.value);
        if (!a || *a == 0 || (*a & (*a - 1)) != 0 || *a > 65536)
            in.fail("general.alignment must be a power of two up to 65536");
        alignment = *a;
    }
    struct Pending {
        GgufTensor tensor;
        std::uint64_t offset;
    };
    std::vector<Pending> pending;
    for (std::uint64_t i = 0; i < tensorCount; ++i) {
        Pending p;
        p.tensor.name = in.string("a tensor name");
        const auto dims = in.read<std::uint32_t>("a tensor's dimension count");
        if (dims == 0 || dims > kMaxDims)
            in.fail(p.tensor.name + " has " + std::to_string(dims) + " dimensions (1 to 4)");
        for (std::uint32_t d = 0; d < dims; ++d)
            p.tensor.ne.push_back(in.read<std::uint64_t>("a tensor dimension"));
        p.tensor.ggmlType = in.read<std::uint32_t>("a tensor type");
        p.offset = in.read<std::uint64_t>("a tensor offset");
        pending.push_back(std::move(p));
    }
    const std::uint64_t dataStart = (in.offset() + alignment - 1) / alignment * alignment;
    if (dataStart > size) in.fail("the data region starts past the end of the file");
    table.dataStart = dataStart;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> extents;
    for (Pending& p : pending) {
        GgufTensor& t = p.tensor;
        const GgmlType* type = findType(t.ggmlType);
        if (!type) in.fail(t.name + " has unknown ggml type " + std::to_string(t.ggmlType));
        const auto bytesNeeded = tensorBytes(*type, t.ne);
        if (!bytesNeeded) in.fail(t.describe() + ": a shape its type cannot hold");
        if (p.offset % alignment != 0)
            in.fail(t.describe() + " is not aligned to " + std::to_string(alignment) + " bytes");
        if (p.offset > size - dataStart || *bytesNeeded > size - dataStart - p.offset)
            in.fail(t.describe() + " lies past the end of the file (truncated?)");
        t.data = bytes + dataStart + p.offset;
        t.byteSize = *bytesNeeded;
        extents.emplace_back(p.offset, p.offset + *bytesNeeded);
        const std::string name = t.name;
        if (!table.tensors.emplace(name, std::move(t)).second)
            in.fail("tensor " + name + " appears twice");
    }
    std::sort(extents.begin(), extents.end());
    for (size_t i = 1; i < extents.size(); ++i)
        if (extents[i].first < extents[i - 1].second) in.fail("two tensors overlap");
    return table;
}

bool isGgufFile(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return false;
    if (path.extension() == ".gguf") return true;
    std::ifstream in(path, std::ios::binary);
    char magic[4] = {};
    in.read(magic, sizeof magic);
    return in && std::memcmp(magic, "GGUF", 4) == 0;
}

GgufFile::GgufFile(const std::filesystem::path& path)
    : m_file(std::make_unique<MappedFile>(path)),
      m_table(parseGguf(m_file->data(), m_file->size(), path)) {}

GgufFile::~GgufFile() = default;

const std::filesystem::path& GgufFile::path() const { return m_file->path(); }
std::size_t GgufFile::fileSize() const { return m_file->size(); }
void GgufFile::checkUnchanged() const { m_file->checkUnchanged(); }

namespace {

const GgufValue* lookup(const GgufTable& t, const std::string& key) {
    const auto found = t.metadata.find(key);
    return found == t.metadata.end() ? nullptr : &found->second;
}

[[noreturn]] void wrongKind(const std::filesystem::path& path, const std::string& key,
                            const char* kind) {
    throw Error(path.string() + ": GGUF metadata " + key + " is not " + kind);
}

}  // namespace

std::optional<std::int64_t> GgufFile::integer(const std::string& key) const {
    const GgufValue* v = lookup(m_table, key);
    if (!v) return std::nullopt;
    if (const auto* u = std::get_if<std::uint64_t>(&v->value)) {
        if (*u > static_cast<std::uint64_t>(INT64_MAX)) wrongKind(path(), key, "an integer");
        return static_cast<std::int64_t>(*u);
    }
    if (const auto* i = std::get_if<std::int64_t>(&v->value)) return *i;
    wrongKind(path(), key, "an integer");
}

std::optional<double> GgufFile::number(const std::string& key) const {
    const GgufValue* v = lookup(m_table, key);
    if (!v) return std::nullopt;
    if (const auto* d = std::get_if<double>(&v->value)) return *d;
    return static_cast<double>(*integer(key));
}

std::optional<std::string> GgufFile::string(const std::string& key) const {
    const GgufValue* v = lookup(m_table, key);
    if (!v) return std::nullopt;
    if (const auto* s = std::get_if<std::string>(&v->value)) return *s;
    wrongKind(path(), key, "a string");
}

std::optional<bool> GgufFile::boolean(const std::string& key) const {
    const GgufValue* v = lookup(m_table, key);
    if (!v) return std::nullopt;
    if (const auto* b = std::get_if<bool>(&v->value)) return *b;
    wrongKind(path(), key, "a bool");
}

const GgufArray* GgufFile::array(const std::string& key) const {
    const GgufValue* v = lookup(m_table, key);
    if (!v) return nullptr;
    if (const auto* a = std::get_if<GgufArray>(&v->value)) return a;
    wrongKind(path(), key, "an array");
}

}  // namespace qkv
