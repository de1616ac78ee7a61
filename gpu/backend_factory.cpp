#include "gpu/backend_factory.h"

#include "core/util/error.h"

namespace qkv {

std::unique_ptr<Backend> createBackend(const std::string& choice) {
    if (choice == "cpu" || choice == "auto") return createCpuBackend();
    if (choice == "vulkan") throw Error("the Vulkan backend is not built into this version");
    throw Error("unknown backend '" + choice + "' (choose auto, cpu or vulkan)");
}

}  // namespace qkv
