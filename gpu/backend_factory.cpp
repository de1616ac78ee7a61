#include "gpu/backend_factory.h"

#include "core/util/error.h"
#include "gpu/vulkan_backend.h"

namespace qkv {

std::unique_ptr<Backend> createBackend(const std::string& choice) {
    if (choice == "cpu") return createCpuBackend();
    if (choice == "vulkan") return createVulkanBackend();
    if (choice == "auto") {
        // A real GPU when one works; a CPU Vulkan driver (lavapipe) is slower than Eigen, and any
        // failure to start the device falls back quietly.
        try {
            VulkanOptions options;
            options.gpuOnly = true;
            return createVulkanBackend(options);
        } catch (const Error&) {
            return createCpuBackend();
        }
    }
    throw Error("unknown backend '" + choice + "' (choose auto, cpu or vulkan)");
}

}  // namespace qkv
