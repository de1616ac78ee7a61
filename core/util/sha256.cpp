#include "core/util/sha256.h"

#include <openssl/evp.h>

#include <array>
#include <cstdio>
#include <memory>
#include <vector>

#include "core/util/error.h"

namespace qkv {

namespace {

using DigestContext = std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)>;

DigestContext startSha256() {
    DigestContext context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1)
        throw Error("SHA-256 is not available from OpenSSL");
    return context;
}

std::string finishHex(EVP_MD_CTX* context) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    EVP_DigestFinal_ex(context, digest.data(), &length);
    static const char* hex = "0123456789abcdef";
    std::string text;
    for (unsigned int i = 0; i < length; ++i) {
        text += hex[digest[i] >> 4];
        text += hex[digest[i] & 15];
    }
    return text;
}

}  // namespace

struct Sha256::Context {
    DigestContext digest = startSha256();
};

Sha256::Sha256() : m_context(std::make_unique<Context>()) {}
Sha256::~Sha256() = default;

void Sha256::update(const void* bytes, std::size_t size) {
    EVP_DigestUpdate(m_context->digest.get(), bytes, size);
}

std::string Sha256::hex() { return finishHex(m_context->digest.get()); }

std::string fileSha256(const std::filesystem::path& path) {
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                               &std::fclose);
    if (!file) throw Error(path.string() + ": cannot read it to check its SHA-256");
    const DigestContext context = startSha256();
    std::vector<unsigned char> buffer(1 << 20);
    size_t read = 0;
    while ((read = std::fread(buffer.data(), 1, buffer.size(), file.get())) > 0)
        EVP_DigestUpdate(context.get(), buffer.data(), read);
    if (std::ferror(file.get())) throw Error(path.string() + ": read error while checking it");
    return finishHex(context.get());
}

std::string sha256Hex(std::string_view bytes) {
    const DigestContext context = startSha256();
    EVP_DigestUpdate(context.get(), bytes.data(), bytes.size());
    return finishHex(context.get());
}

}  // namespace qkv
