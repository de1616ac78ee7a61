#pragma once
// Two head atlases are the same to the last bit: scores, sums and counts (finished blocks and
// the open one), examples and the sequences they name.
#include "core/analysis/head_atlas.h"

namespace qkv::test {

void expectSameAtlas(const HeadAtlas& a, const HeadAtlas& b);

}  // namespace qkv::test
