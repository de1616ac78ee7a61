#include "core/report/npz_writer.h"

#include <zip.h>

#include <algorithm>
#include <cstring>

#include "core/util/error.h"

namespace qkv {

// One archive member: a header (the .npy preamble; empty for text) followed by bytes of the
// caller's or the member's own.
struct NpzWriter::Member {
    std::string header;
    const unsigned char* data = nullptr;
    std::uint64_t size = 0;
    std::string owned;  // text members' bytes
    std::uint64_t position = 0;
    zip_error_t error;
};

namespace {

// .npy format 1.0: magic, version, a little-endian header length, then a Python dict literal
// padded with spaces to a multiple of 64 bytes and ended by a newline.
std::string npyHeader(const char* descr, const std::vector<std::int64_t>& shape) {
    std::string dims;  // "(2, 3)"; "(3,)" for one dimension
    for (size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
    if (shape.size() == 1) dims += ",";
    std::string dict = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': (" + dims + "), }";
    const size_t unpadded = 10 + dict.size() + 1;
    dict.append((64 - unpadded % 64) % 64, ' ');
    dict += '\n';
    std::string header = "\x93NUMPY";
    header += '\x01';
    header += '\x00';
    header += static_cast<char>(dict.size() & 0xFF);
    header += static_cast<char>(dict.size() >> 8);
    return header + dict;
}

std::uint64_t elements(const std::vector<std::int64_t>& shape) {
    std::uint64_t n = 1;
    for (std::int64_t d : shape) n *= static_cast<std::uint64_t>(d);
    return n;
}

// libzip reads a member through this: the header, then the data, never copied whole.
zip_int64_t readMember(void* state, void* out, zip_uint64_t length, zip_source_cmd_t command) {
    auto& m = *static_cast<NpzWriter::Member*>(state);
    const std::uint64_t total = m.header.size() + m.size;
    switch (command) {
        case ZIP_SOURCE_OPEN:
            m.position = 0;
            return 0;
        case ZIP_SOURCE_READ: {
            auto* bytes = static_cast<unsigned char*>(out);
            std::uint64_t written = 0;
            while (written < length && m.position < total) {
                const bool inHeader = m.position < m.header.size();
                const unsigned char* from =
                    inHeader ? reinterpret_cast<const unsigned char*>(m.header.data()) + m.position
                             : m.data + (m.position - m.header.size());
                const std::uint64_t left =
                    inHeader ? m.header.size() - m.position : total - m.position;
                const std::uint64_t n = std::min<std::uint64_t>(left, length - written);
                std::memcpy(bytes + written, from, n);
                written += n;
                m.position += n;
            }
            return static_cast<zip_int64_t>(written);
        }
        case ZIP_SOURCE_CLOSE:
            return 0;
        case ZIP_SOURCE_STAT: {
            auto* stat = static_cast<zip_stat_t*>(out);
            zip_stat_init(stat);
            stat->size = total;
            stat->valid |= ZIP_STAT_SIZE;
            return sizeof(zip_stat_t);
        }
        case ZIP_SOURCE_ERROR:
            return zip_error_to_data(&m.error, out, length);
        case ZIP_SOURCE_FREE:
            return 0;  // the writer owns the member
        case ZIP_SOURCE_SUPPORTS:
            return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ,
                                                  ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
                                                  ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, -1);
        default:
            zip_error_set(&m.error, ZIP_ER_OPNOTSUPP, 0);
            return -1;
    }
}

}  // namespace

NpzWriter::NpzWriter(const std::filesystem::path& file) : m_file(file) {
    int code = 0;
    m_archive = zip_open(file.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
    if (!m_archive) {
        zip_error_t error;
        zip_error_init_with_code(&error, code);
        const std::string reason = zip_error_strerror(&error);
        zip_error_fini(&error);
        throw Error(file.string() + ": cannot create the archive (" + reason + ")");
    }
}

NpzWriter::~NpzWriter() {
    if (m_archive) zip_discard(m_archive);
    for (Member* m : m_members) {
        zip_error_fini(&m->error);
        delete m;
    }
}

void NpzWriter::add(const std::string& fileName, Member member) {
    auto* m = new Member(std::move(member));
    zip_error_init(&m->error);
    m_members.push_back(m);
    if (!m->owned.empty() || m->data == nullptr) {
        m->data = reinterpret_cast<const unsigned char*>(m->owned.data());
        m->size = m->owned.size();
    }
    zip_source_t* source = zip_source_function(m_archive, readMember, m);
    if (!source) throw Error(m_file.string() + ": " + zip_strerror(m_archive));
    const zip_int64_t index =
        zip_file_add(m_archive, fileName.c_str(), source, ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE);
    if (index < 0) {
        zip_source_free(source);
        throw Error(m_file.string() + ": " + zip_strerror(m_archive));
    }
    // Stored, as numpy.savez writes: float32 attention hardly compresses, and numpy maps it.
    zip_set_file_compression(m_archive, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0);
}

void NpzWriter::addFloat32(const std::string& name, const float* data,
                           std::vector<std::int64_t> shape) {
    Member m;
    m.header = npyHeader("<f4", shape);
    m.data = reinterpret_cast<const unsigned char*>(data);
    m.size = elements(shape) * sizeof(float);
    add(name + ".npy", std::move(m));
}

void NpzWriter::addInt64(const std::string& name, const std::int64_t* data,
                         std::vector<std::int64_t> shape) {
    Member m;
    m.header = npyHeader("<i8", shape);
    m.data = reinterpret_cast<const unsigned char*>(data);
    m.size = elements(shape) * sizeof(std::int64_t);
    add(name + ".npy", std::move(m));
}

void NpzWriter::addText(const std::string& fileName, std::string text) {
    Member m;
    m.owned = std::move(text);
    add(fileName, std::move(m));
}

void NpzWriter::close() {
    if (zip_close(m_archive) != 0) {
        const std::string reason = zip_strerror(m_archive);
        zip_discard(m_archive);
        m_archive = nullptr;
        throw Error(m_file.string() + ": cannot write the archive (" + reason + ")");
    }
    m_archive = nullptr;
}

}  // namespace qkv
