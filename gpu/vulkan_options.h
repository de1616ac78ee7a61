#pragma once
// What a Vulkan backend is asked for and what device it found: plain data, shared by the public
// backend header and the lowest gpu file (vulkan_context.h), which needs nothing else of it.
#include <cstdint>
#include <string>

namespace qkv {

struct VulkanDeviceInfo {
    std::string name;  // e.g. "NVIDIA H100 80GB HBM3", "llvmpipe (LLVM 15.0.6, 256 bits)"
    std::string type;  // "discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other"
    bool gpu = false;  // real graphics hardware (not a CPU implementation)
};

struct VulkanOptions {
    std::string device;    // index or name substring; empty: $QKV_VULKAN_DEVICE, else the best
    bool gpuOnly = false;  // refuse CPU implementations (for "auto" selection)
    // Caps the bytes one shader may address (0: the device's maxStorageBufferRange). Weights
    // larger than that are stored in several parts; tests use a small cap to exercise that.
    std::uint64_t maxBufferRange = 0;
};

}  // namespace qkv
