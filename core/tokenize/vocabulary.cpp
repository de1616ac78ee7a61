#include "core/tokenize/vocabulary.h"

#include "core/util/error.h"

namespace qkv {

void Vocabulary::set(std::string piece, int id) {
    const auto index = static_cast<std::size_t>(id);
    if (index >= m_pieces.size()) {
        m_pieces.resize(index + 1);
        m_present.resize(index + 1, false);
    }
    m_pieces[index] = piece;
    m_present[index] = true;
    m_ids.insert_or_assign(std::move(piece), id);
}

const std::string* Vocabulary::piece(int id) const {
    if (id < 0 || id >= size() || !m_present[static_cast<std::size_t>(id)]) return nullptr;
    return &m_pieces[static_cast<std::size_t>(id)];
}

const std::string& Vocabulary::at(int id) const {
    if (const std::string* p = piece(id)) return *p;
    throw Error("token id " + std::to_string(id) + " is not in the vocabulary (ids 0.." +
                std::to_string(size() - 1) + ")");
}

}  // namespace qkv
