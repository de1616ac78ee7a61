#pragma once
// Hugging Face's names of the tensors llama.cpp's converter writes: Llama's module names, and
// where a family's differ, its own (ModelFamily::gguf).
#include <string>

#include "core/model/model_family.h"

namespace qkv {

// Hugging Face's name of the GGUF tensor `name` in the family's layout; empty for one QKV Lab
// does not read. A layer's stacked experts are named with "*" for the expert's number.
std::string huggingFaceTensorName(const GgufLayout& layout, const std::string& name);

}  // namespace qkv
