// Opens the Vulkan loader, reads the function table, picks the device and creates the logical
// device and queue. About 400 lines: the loader, the device choice and the error texts that name
// what is missing belong to the one object every other part of the backend is created on.
#include "gpu/vulkan_context.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "core/util/error.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <dlfcn.h>
#endif

namespace qkv::gpu {

const char* resultName(VkResult result) {
    switch (result) {
        case VK_SUCCESS:
            return "VK_SUCCESS";
        case VK_NOT_READY:
            return "VK_NOT_READY";
        case VK_TIMEOUT:
            return "VK_TIMEOUT";
        case VK_INCOMPLETE:
            return "VK_INCOMPLETE";
        case VK_ERROR_OUT_OF_HOST_MEMORY:
            return "VK_ERROR_OUT_OF_HOST_MEMORY";
        case VK_ERROR_OUT_OF_DEVICE_MEMORY:
            return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
        case VK_ERROR_INITIALIZATION_FAILED:
            return "VK_ERROR_INITIALIZATION_FAILED";
        case VK_ERROR_DEVICE_LOST:
            return "VK_ERROR_DEVICE_LOST";
        case VK_ERROR_MEMORY_MAP_FAILED:
            return "VK_ERROR_MEMORY_MAP_FAILED";
        case VK_ERROR_LAYER_NOT_PRESENT:
            return "VK_ERROR_LAYER_NOT_PRESENT";
        case VK_ERROR_EXTENSION_NOT_PRESENT:
            return "VK_ERROR_EXTENSION_NOT_PRESENT";
        case VK_ERROR_FEATURE_NOT_PRESENT:
            return "VK_ERROR_FEATURE_NOT_PRESENT";
        case VK_ERROR_INCOMPATIBLE_DRIVER:
            return "VK_ERROR_INCOMPATIBLE_DRIVER";
        case VK_ERROR_TOO_MANY_OBJECTS:
            return "VK_ERROR_TOO_MANY_OBJECTS";
        case VK_ERROR_OUT_OF_POOL_MEMORY:
            return "VK_ERROR_OUT_OF_POOL_MEMORY";
        default:
            return "VkResult error";
    }
}

void check(VkResult result, const char* call) {
    if (result == VK_SUCCESS) return;
    if (result == VK_ERROR_DEVICE_LOST)
        throw Error(std::string("the Vulkan device was lost during ") + call +
                    " (driver reset or crash); restart with the cpu backend");
    throw Error(std::string("Vulkan call ") + call + " failed: " + resultName(result) + " (" +
                std::to_string(static_cast<int>(result)) + ")");
}

// The platform's loader library, opened at run time so that its absence is an error message
// rather than a program that cannot start.
class VulkanLibrary {
  public:
    static std::shared_ptr<VulkanLibrary> open() {
        const char* overrideName = std::getenv("QKV_VULKAN_LIBRARY");
#if defined(_WIN32)
        const std::string name = overrideName ? overrideName : "vulkan-1.dll";
        HMODULE handle = LoadLibraryA(name.c_str());
        const std::string why = "LoadLibrary failed";
#else
#if defined(__APPLE__)
        const std::string name = overrideName ? overrideName : "libvulkan.1.dylib";
#else
        const std::string name = overrideName ? overrideName : "libvulkan.so.1";
#endif
        // RTLD_NODELETE: the loader stays mapped after the last backend closes it, so its global
        // state is initialised once per process rather than again for every new backend.
        void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        const char* reason = handle ? nullptr : dlerror();
        const std::string why = reason ? reason : "dlopen failed";
#endif
        if (!handle)
            throw Error("Vulkan is not available: the loader library " + name +
                        " could not be opened (" + why +
                        "); install the Vulkan loader and a driver, or use the cpu backend");
        auto library = std::shared_ptr<VulkanLibrary>(new VulkanLibrary(handle));
#if defined(_WIN32)
        library->m_getInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
            GetProcAddress(handle, "vkGetInstanceProcAddr"));
#else
        library->m_getInstanceProcAddr =
            reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(handle, "vkGetInstanceProcAddr"));
#endif
        if (!library->m_getInstanceProcAddr)
            throw Error("Vulkan is not available: " + name +
                        " has no vkGetInstanceProcAddr (not a Vulkan loader)");
        return library;
    }

    ~VulkanLibrary() {
#if defined(_WIN32)
        FreeLibrary(static_cast<HMODULE>(m_handle));
#else
        dlclose(m_handle);
#endif
    }

    PFN_vkGetInstanceProcAddr getInstanceProcAddr() const { return m_getInstanceProcAddr; }

  private:
    explicit VulkanLibrary(void* handle) : m_handle(handle) {}
    void* m_handle;
    PFN_vkGetInstanceProcAddr m_getInstanceProcAddr = nullptr;
};

namespace {

template <typename Pfn>
void loadInstanceFunction(const VulkanFunctions& vk, VkInstance instance, const char* name,
                          Pfn& out) {
    out = reinterpret_cast<Pfn>(vk.vkGetInstanceProcAddr(instance, name));
    if (!out) throw Error(std::string("the Vulkan loader lacks ") + name);
}

// An instance with the instance-level functions; destroyed with the object unless released.
class InstanceScope {
  public:
    InstanceScope() {
        m_library = VulkanLibrary::open();
        m_vk.vkGetInstanceProcAddr = m_library->getInstanceProcAddr();
        loadInstanceFunction(m_vk, VK_NULL_HANDLE, "vkCreateInstance", m_vk.vkCreateInstance);
        loadInstanceFunction(m_vk, VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties",
                             m_vk.vkEnumerateInstanceExtensionProperties);

        // Portability drivers (MoltenVK) are only listed when the application opts in.
        std::vector<const char*> extensions;
        VkInstanceCreateFlags flags = 0;
        uint32_t count = 0;
        m_vk.vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
        std::vector<VkExtensionProperties> available(count);
        m_vk.vkEnumerateInstanceExtensionProperties(nullptr, &count, available.data());
        for (const VkExtensionProperties& e : available)
            if (std::strcmp(e.extensionName, "VK_KHR_portability_enumeration") == 0) {
                extensions.push_back("VK_KHR_portability_enumeration");
                flags |= 0x00000001;  // VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR
            }

        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.pApplicationName = "QKV Lab";
        app.pEngineName = "qkv";
        app.apiVersion = VK_API_VERSION_1_0;
        VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        info.flags = flags;
        info.pApplicationInfo = &app;
        info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
        info.ppEnabledExtensionNames = extensions.data();
        const VkResult result = m_vk.vkCreateInstance(&info, nullptr, &m_instance);
        if (result != VK_SUCCESS)
            throw Error(std::string("Vulkan is not available: vkCreateInstance failed (") +
                        resultName(result) +
                        "), usually because no Vulkan driver is installed; use the cpu backend");

#define QKV_VK_LOAD(name) loadInstanceFunction(m_vk, m_instance, #name, m_vk.name);
        QKV_VK_INSTANCE_FUNCTIONS(QKV_VK_LOAD)
#undef QKV_VK_LOAD
        uint32_t deviceCount = 0;
        check(m_vk.vkEnumeratePhysicalDevices(m_instance, &deviceCount, nullptr),
              "vkEnumeratePhysicalDevices");
        m_devices.resize(deviceCount);
        check(m_vk.vkEnumeratePhysicalDevices(m_instance, &deviceCount, m_devices.data()),
              "vkEnumeratePhysicalDevices");
        m_devices.resize(deviceCount);
    }
    ~InstanceScope() {
        if (m_instance) m_vk.vkDestroyInstance(m_instance, nullptr);
    }

    std::shared_ptr<VulkanLibrary>& library() { return m_library; }
    VulkanFunctions& vk() { return m_vk; }
    VkInstance release() { return std::exchange(m_instance, VK_NULL_HANDLE); }
    const std::vector<VkPhysicalDevice>& devices() const { return m_devices; }

  private:
    std::shared_ptr<VulkanLibrary> m_library;
    VulkanFunctions m_vk;
    VkInstance m_instance = VK_NULL_HANDLE;
    std::vector<VkPhysicalDevice> m_devices;
};

VulkanDeviceInfo describe(const VkPhysicalDeviceProperties& p) {
    VulkanDeviceInfo info;
    info.name = p.deviceName;
    switch (p.deviceType) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
            info.type = "discrete GPU";
            break;
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
            info.type = "integrated GPU";
            break;
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
            info.type = "virtual GPU";
            break;
        case VK_PHYSICAL_DEVICE_TYPE_CPU:
            info.type = "CPU";
            break;
        default:
            info.type = "other";
            break;
    }
    info.gpu = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
               p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ||
               p.deviceType == VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU;
    return info;
}

int preference(VkPhysicalDeviceType type) {
    switch (type) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
            return 0;
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
            return 1;
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
            return 2;
        case VK_PHYSICAL_DEVICE_TYPE_CPU:
            return 3;
        default:
            return 4;
    }
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::string deviceList(const std::vector<VulkanDeviceInfo>& infos) {
    std::string list;
    for (size_t i = 0; i < infos.size(); ++i)
        list +=
            (i ? ", " : "") + std::to_string(i) + ": " + infos[i].name + " (" + infos[i].type + ")";
    return list;
}

// Index of the chosen device; the selector is an index or a name substring.
size_t chooseDevice(const std::vector<VkPhysicalDeviceProperties>& properties,
                    const std::vector<bool>& hasCompute, const std::string& selector) {
    std::vector<VulkanDeviceInfo> infos;
    for (const auto& p : properties) infos.push_back(describe(p));
    if (!selector.empty()) {
        const bool numeric = std::all_of(selector.begin(), selector.end(),
                                         [](unsigned char c) { return std::isdigit(c); });
        size_t index = infos.size();
        if (numeric) {
            index = std::strtoul(selector.c_str(), nullptr, 10);
        } else {
            for (size_t i = 0; i < infos.size() && index == infos.size(); ++i)
                if (lower(infos[i].name).find(lower(selector)) != std::string::npos) index = i;
        }
        if (index >= infos.size())
            throw Error("no Vulkan device matches '" + selector +
                        "' (devices: " + deviceList(infos) + ")");
        if (!hasCompute[index])
            throw Error("the Vulkan device " + infos[index].name + " has no compute queue");
        return index;
    }
    size_t best = properties.size();
    for (size_t i = 0; i < properties.size(); ++i) {
        if (!hasCompute[i]) continue;
        if (best == properties.size() ||
            preference(properties[i].deviceType) < preference(properties[best].deviceType))
            best = i;
    }
    if (best == properties.size())
        throw Error("no Vulkan device with a compute queue (devices: " + deviceList(infos) + ")");
    return best;
}

}  // namespace

Context::Context(const VulkanOptions& options) {
    InstanceScope scope;
    m_vk = scope.vk();
    if (scope.devices().empty())
        throw Error(
            "Vulkan is installed but reports no device (no driver for this machine's GPU, and no "
            "software driver such as Mesa's lavapipe); use the cpu backend");

    const auto& devices = scope.devices();
    std::vector<VkPhysicalDeviceProperties> properties(devices.size());
    std::vector<bool> hasCompute(devices.size());
    std::vector<uint32_t> computeFamily(devices.size());
    for (size_t i = 0; i < devices.size(); ++i) {
        m_vk.vkGetPhysicalDeviceProperties(devices[i], &properties[i]);
        uint32_t count = 0;
        m_vk.vkGetPhysicalDeviceQueueFamilyProperties(devices[i], &count, nullptr);
        std::vector<VkQueueFamilyProperties> families(count);
        m_vk.vkGetPhysicalDeviceQueueFamilyProperties(devices[i], &count, families.data());
        for (uint32_t f = 0; f < count && !hasCompute[i]; ++f)
            if (families[f].queueFlags & VK_QUEUE_COMPUTE_BIT) {
                hasCompute[i] = true;
                computeFamily[i] = f;
            }
    }
    std::string selector = options.device;
    if (selector.empty())
        if (const char* env = std::getenv("QKV_VULKAN_DEVICE")) selector = env;
    const size_t chosen = chooseDevice(properties, hasCompute, selector);
    m_info = describe(properties[chosen]);
    if (options.gpuOnly && !m_info.gpu)
        throw Error("no GPU among the Vulkan devices (only " + m_info.name + ", a " + m_info.type +
                    " implementation)");

    m_physical = devices[chosen];
    m_properties = properties[chosen];
    if (options.maxBufferRange > 0)
        m_properties.limits.maxStorageBufferRange = static_cast<uint32_t>(std::min<std::uint64_t>(
            m_properties.limits.maxStorageBufferRange, options.maxBufferRange));
    m_queueFamily = computeFamily[chosen];
    m_vk.vkGetPhysicalDeviceMemoryProperties(m_physical, &m_memory);

    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queueInfo.queueFamilyIndex = m_queueFamily;
    queueInfo.queueCount = 1;
    queueInfo.pQueuePriorities = &priority;
    // A portability implementation (MoltenVK) must have its subset extension enabled.
    std::vector<const char*> extensions;
    uint32_t extensionCount = 0;
    m_vk.vkEnumerateDeviceExtensionProperties(m_physical, nullptr, &extensionCount, nullptr);
    std::vector<VkExtensionProperties> available(extensionCount);
    m_vk.vkEnumerateDeviceExtensionProperties(m_physical, nullptr, &extensionCount,
                                              available.data());
    for (const VkExtensionProperties& e : available)
        if (std::strcmp(e.extensionName, "VK_KHR_portability_subset") == 0)
            extensions.push_back("VK_KHR_portability_subset");
    VkDeviceCreateInfo deviceInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    deviceInfo.queueCreateInfoCount = 1;
    deviceInfo.pQueueCreateInfos = &queueInfo;
    deviceInfo.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    deviceInfo.ppEnabledExtensionNames = extensions.data();
    check(m_vk.vkCreateDevice(m_physical, &deviceInfo, nullptr, &m_device), "vkCreateDevice");

    // From here the destructor cleans up; keep the instance and the library alive with us.
    m_instance = scope.release();
    m_library = scope.library();
    auto loadDevice = [&](const char* name) {
        auto f = m_vk.vkGetDeviceProcAddr(m_device, name);
        if (!f) {
            m_vk.vkDestroyDevice(m_device, nullptr);
            m_vk.vkDestroyInstance(m_instance, nullptr);
            throw Error(std::string("the Vulkan driver lacks ") + name);
        }
        return f;
    };
#define QKV_VK_LOAD(name) m_vk.name = reinterpret_cast<PFN_##name>(loadDevice(#name));
    QKV_VK_DEVICE_FUNCTIONS(QKV_VK_LOAD)
#undef QKV_VK_LOAD
    m_vk.vkGetDeviceQueue(m_device, m_queueFamily, 0, &m_queue);
}

Context::~Context() {
    m_vk.vkDeviceWaitIdle(m_device);
    m_vk.vkDestroyDevice(m_device, nullptr);
    m_vk.vkDestroyInstance(m_instance, nullptr);
}

int Context::memoryType(uint32_t typeBits, VkMemoryPropertyFlags required,
                        VkMemoryPropertyFlags preferred) const {
    int best = -1;
    int bestScore = -1;
    for (uint32_t i = 0; i < m_memory.memoryTypeCount; ++i) {
        const VkMemoryPropertyFlags flags = m_memory.memoryTypes[i].propertyFlags;
        if (!(typeBits & (1u << i)) || (flags & required) != required) continue;
        const int score = std::popcount(flags & preferred);
        if (score > bestScore) {
            best = static_cast<int>(i);
            bestScore = score;
        }
    }
    return best;
}

}  // namespace qkv::gpu

namespace qkv {

std::vector<VulkanDeviceInfo> listVulkanDevices() {
    try {
        gpu::InstanceScope scope;
        std::vector<VulkanDeviceInfo> infos;
        for (VkPhysicalDevice device : scope.devices()) {
            VkPhysicalDeviceProperties p;
            scope.vk().vkGetPhysicalDeviceProperties(device, &p);
            infos.push_back(gpu::describe(p));
        }
        return infos;
    } catch (const Error&) {
        return {};
    }
}

}  // namespace qkv
