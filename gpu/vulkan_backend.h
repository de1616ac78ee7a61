#pragma once
// The Vulkan compute backend. No Vulkan types here: the loader (libvulkan) is opened at run time,
// so a machine without it still runs everything on the CPU backend.
//
// Device choice: VulkanOptions::device, else $QKV_VULKAN_DEVICE, each either an index into
// listVulkanDevices() or a case-insensitive substring of a device name; without either the best
// device is taken (discrete GPU, then integrated, virtual, and last a CPU implementation such as
// Mesa's lavapipe). $QKV_VULKAN_LIBRARY names the loader library to open instead of the
// platform's default.
//
// A backend is used from one thread at a time. Its tensors may outlive it.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/backend/backend.h"
#include "gpu/vulkan_options.h"

namespace qkv {

// The devices the Vulkan loader reports, in its order; empty (never throws) when there is no
// loader, no driver or no device.
std::vector<VulkanDeviceInfo> listVulkanDevices();

// Throws qkv::Error saying what is missing (loader, driver, device, or the named device).
std::unique_ptr<Backend> createVulkanBackend(const VulkanOptions& options = {});

// What a Vulkan backend has recorded and submitted so far (for tests and benchmarks).
struct VulkanCounters {
    std::uint64_t dispatches = 0;
    std::uint64_t barriers = 0;
    std::uint64_t submissions = 0;  // each one a host wait
    std::uint64_t uploadedBytes = 0;
};
// nullopt for other backends.
std::optional<VulkanCounters> vulkanCounters(const Backend& backend);

}  // namespace qkv
