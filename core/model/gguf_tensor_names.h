#pragma once
// Hugging Face's names of the tensors llama.cpp's converter writes, per architecture.
#include <string>

namespace qkv {

// Hugging Face's name of the GGUF tensor `name` of architecture `arch` (`modelType`, the
// config's model_type, tells Mixtral from Llama); empty for one QKV Lab does not read. A
// layer's stacked experts are named with "*" for the expert's number.
std::string huggingFaceTensorName(const std::string& arch, const std::string& modelType,
                                  const std::string& name);

}  // namespace qkv
