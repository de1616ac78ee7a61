#pragma once
// Internal to gpu/: the Vulkan loader opened at run time, the function table read from it, and the
// instance + logical device every other object of the backend is created on.
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpu/vulkan_options.h"

namespace qkv::gpu {

#define QKV_VK_INSTANCE_FUNCTIONS(X)            \
    X(vkDestroyInstance)                        \
    X(vkEnumeratePhysicalDevices)               \
    X(vkGetPhysicalDeviceProperties)            \
    X(vkGetPhysicalDeviceQueueFamilyProperties) \
    X(vkGetPhysicalDeviceMemoryProperties)      \
    X(vkEnumerateDeviceExtensionProperties)     \
    X(vkCreateDevice)                           \
    X(vkGetDeviceProcAddr)

#define QKV_VK_DEVICE_FUNCTIONS(X)    \
    X(vkDestroyDevice)                \
    X(vkGetDeviceQueue)               \
    X(vkDeviceWaitIdle)               \
    X(vkCreateBuffer)                 \
    X(vkDestroyBuffer)                \
    X(vkGetBufferMemoryRequirements)  \
    X(vkAllocateMemory)               \
    X(vkFreeMemory)                   \
    X(vkBindBufferMemory)             \
    X(vkMapMemory)                    \
    X(vkUnmapMemory)                  \
    X(vkFlushMappedMemoryRanges)      \
    X(vkInvalidateMappedMemoryRanges) \
    X(vkCreateShaderModule)           \
    X(vkDestroyShaderModule)          \
    X(vkCreateDescriptorSetLayout)    \
    X(vkDestroyDescriptorSetLayout)   \
    X(vkCreatePipelineLayout)         \
    X(vkDestroyPipelineLayout)        \
    X(vkCreateComputePipelines)       \
    X(vkDestroyPipeline)              \
    X(vkCreateDescriptorPool)         \
    X(vkDestroyDescriptorPool)        \
    X(vkResetDescriptorPool)          \
    X(vkAllocateDescriptorSets)       \
    X(vkUpdateDescriptorSets)         \
    X(vkCreateCommandPool)            \
    X(vkDestroyCommandPool)           \
    X(vkAllocateCommandBuffers)       \
    X(vkResetCommandPool)             \
    X(vkBeginCommandBuffer)           \
    X(vkEndCommandBuffer)             \
    X(vkCmdBindPipeline)              \
    X(vkCmdBindDescriptorSets)        \
    X(vkCmdPushConstants)             \
    X(vkCmdDispatch)                  \
    X(vkCmdPipelineBarrier)           \
    X(vkCmdCopyBuffer)                \
    X(vkQueueSubmit)                  \
    X(vkCreateFence)                  \
    X(vkDestroyFence)                 \
    X(vkWaitForFences)                \
    X(vkResetFences)

#define QKV_VK_DECLARE(name) PFN_##name name = nullptr;

// Entry points read from the loader: the instance-level ones once the instance exists, the
// device-level ones (through vkGetDeviceProcAddr, skipping the loader's trampoline) per device.
struct VulkanFunctions {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
    PFN_vkCreateInstance vkCreateInstance = nullptr;
    PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;  // null on 1.0 loaders
    PFN_vkEnumerateInstanceExtensionProperties vkEnumerateInstanceExtensionProperties = nullptr;
    QKV_VK_INSTANCE_FUNCTIONS(QKV_VK_DECLARE)
    QKV_VK_DEVICE_FUNCTIONS(QKV_VK_DECLARE)
};

#undef QKV_VK_DECLARE

// Throws qkv::Error naming the call and the VkResult unless `result` is VK_SUCCESS.
void check(VkResult result, const char* call);
const char* resultName(VkResult result);

// Move-only owner of one Vulkan handle; `destroy` runs once, when the owner goes.
template <typename Handle>
class Owned {
  public:
    Owned() = default;
    Owned(Handle handle, std::function<void(Handle)> destroy)
        : m_handle(handle), m_destroy(std::move(destroy)) {}
    Owned(Owned&& other) noexcept { *this = std::move(other); }
    Owned& operator=(Owned&& other) noexcept {
        if (this != &other) {
            reset();
            m_handle = std::exchange(other.m_handle, Handle{});
            m_destroy = std::move(other.m_destroy);
        }
        return *this;
    }
    Owned(const Owned&) = delete;
    Owned& operator=(const Owned&) = delete;
    ~Owned() { reset(); }

    Handle get() const { return m_handle; }
    explicit operator bool() const { return m_handle != Handle{}; }
    void reset() {
        if (m_handle != Handle{}) m_destroy(m_handle);
        m_handle = Handle{};
    }

  private:
    Handle m_handle{};
    std::function<void(Handle)> m_destroy;
};

class VulkanLibrary;

// The instance, the chosen physical device and a logical device with one compute queue. Shared
// by the backend and by every buffer it hands out, so tensors may outlive the backend.
class Context {
  public:
    // Throws qkv::Error when no loader, driver or (matching) device exists.
    explicit Context(const VulkanOptions& options);
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    const VulkanFunctions& vk() const { return m_vk; }
    VkDevice device() const { return m_device; }
    VkQueue queue() const { return m_queue; }
    uint32_t queueFamily() const { return m_queueFamily; }
    const VkPhysicalDeviceProperties& properties() const { return m_properties; }
    const VkPhysicalDeviceMemoryProperties& memory() const { return m_memory; }
    const VulkanDeviceInfo& info() const { return m_info; }

    // Index of a memory type allowed by `typeBits` with all of `required` (and as many of
    // `preferred` as possible), or -1.
    int memoryType(uint32_t typeBits, VkMemoryPropertyFlags required,
                   VkMemoryPropertyFlags preferred) const;

  private:
    std::shared_ptr<VulkanLibrary> m_library;
    VulkanFunctions m_vk;
    VkInstance m_instance = VK_NULL_HANDLE;
    VkPhysicalDevice m_physical = VK_NULL_HANDLE;
    VkDevice m_device = VK_NULL_HANDLE;
    VkQueue m_queue = VK_NULL_HANDLE;
    uint32_t m_queueFamily = 0;
    VkPhysicalDeviceProperties m_properties{};
    VkPhysicalDeviceMemoryProperties m_memory{};
    VulkanDeviceInfo m_info;
};

}  // namespace qkv::gpu
