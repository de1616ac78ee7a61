#pragma once
// An atlas part (atlas_run.h) as bytes, for a part computed in another process or on another
// machine (the Python module's Dask workers): CBOR, its numbers as IEEE doubles and integers, so
// that the part decoded is the part encoded, to the last bit.
#include <string>

#include "core/report/atlas_run.h"

namespace qkv {

std::string encodeAtlasPart(const AtlasPart& part);
// Throws qkv::Error for bytes that are not an encoded part.
AtlasPart decodeAtlasPart(const std::string& bytes);

}  // namespace qkv
