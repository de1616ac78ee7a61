#pragma once
// The built-in training corpus: short English stories generated from a small grammar, written
// for this project (its licence is the project's). The stories carry the relations attention
// has to resolve, several of them directed:
//   - who did what to whom: "Tom chased Lily. Lily ran away from Tom." — the consequence
//     depends on the direction of the first sentence;
//   - pronouns that agree with an earlier name's gender ("she", "him", "her kite");
//   - possession that changes hands ("Tom gave his red kite to Lily. ... Lily's kite");
//   - subject-verb agreement ("the birds sing, but the frog sleeps"; "there are two cats");
//   - converse comparatives ("Tom is bigger than Lily, so Lily is smaller than Tom").
// Generation is deterministic in the seed on every platform (see random.h).
#include <cstdint>
#include <string>
#include <vector>

namespace qkv::train {

class Random;

std::string generateStory(Random& random);
std::vector<std::string> generateStories(std::uint64_t seed, int count);

}  // namespace qkv::train
