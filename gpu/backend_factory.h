#pragma once
// Backend selection for the front ends: "cpu", "vulkan" (fails with a clear message when no
// Vulkan device or loader exists) or "auto" (a real GPU when present, else the CPU, silently).
#include <memory>
#include <string>

#include "core/backend/backend.h"

namespace qkv {

std::unique_ptr<Backend> createBackend(const std::string& choice);  // throws qkv::Error

}  // namespace qkv
