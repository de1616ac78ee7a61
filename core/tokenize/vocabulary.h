#pragma once
// A token vocabulary: piece <-> id, both directions. Ids may leave holes (tokenizer.json added
// tokens can sit past the model vocabulary); a hole has no piece.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace qkv {

// A vocabulary id (Vocabulary::kMissing where the text has no entry) and the bytes
// [begin, end) of the word it was made from.
struct PieceSpan {
    int id = -1;
    std::size_t begin = 0;
    std::size_t end = 0;
};

class Vocabulary {
  public:
    static constexpr int kMissing = -1;

    // Maps `piece` to `id` (a later call for the same piece wins, as in Python dicts) and `id`
    // to `piece`. `id` must be non-negative; the reader checks ranges and duplicates.
    void set(std::string piece, int id);

    int find(std::string_view piece) const {
        const auto it = m_ids.find(piece);
        return it == m_ids.end() ? kMissing : it->second;
    }
    // One past the largest id.
    int size() const { return static_cast<int>(m_pieces.size()); }
    // The piece of `id`, or nullptr for an id out of range or a hole.
    const std::string* piece(int id) const;
    // The piece of `id`; throws qkv::Error for an id out of range or a hole.
    const std::string& at(int id) const;

  private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const {
            return std::hash<std::string_view>{}(s);
        }
    };
    std::unordered_map<std::string, int, Hash, std::equal_to<>> m_ids;
    std::vector<std::string> m_pieces;
    std::vector<bool> m_present;
};

}  // namespace qkv
