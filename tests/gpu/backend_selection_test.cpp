// createBackend("auto" | "cpu" | "vulkan") and Vulkan device selection, including machines
// without a loader or without a driver (simulated through the environment).
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "gpu/backend_factory.h"
#include "tests/gpu/gpu_test_support.h"

namespace qkv {
namespace {

// Sets an environment variable for the scope, restoring the previous value after.
class ScopedEnvironment {
  public:
    ScopedEnvironment(const char* name, const char* value) : m_name(name) {
        if (const char* old = std::getenv(name)) m_old = old;
        setenv(name, value, 1);
    }
    ~ScopedEnvironment() {
        if (m_old)
            setenv(m_name.c_str(), m_old->c_str(), 1);
        else
            unsetenv(m_name.c_str());
    }

  private:
    std::string m_name;
    std::optional<std::string> m_old;
};

bool anyGpu() {
    for (const VulkanDeviceInfo& d : listVulkanDevices())
        if (d.gpu) return true;
    return false;
}

std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(BackendSelection, CpuAndUnknownChoices) {
    EXPECT_EQ(createBackend("cpu")->name(), "cpu");
    const std::string message = errorOf([] { createBackend("cuda"); });
    EXPECT_NE(message.find("auto, cpu or vulkan"), std::string::npos) << message;
}

TEST(BackendSelection, VulkanNamesItsDevice) {
    QKV_REQUIRE_VULKAN(shared);
    const auto backend = createBackend("vulkan");
    const std::string name = backend->name();
    EXPECT_EQ(name.rfind("vulkan (", 0), 0u) << name;
    const auto devices = listVulkanDevices();
    ASSERT_FALSE(devices.empty());
    bool listed = false;
    for (const auto& d : devices) listed |= name == "vulkan (" + d.name + ")";
    EXPECT_TRUE(listed) << name;
}

TEST(BackendSelection, AutoTakesOnlyARealGpu) {
    const std::string name = createBackend("auto")->name();
    if (anyGpu())
        EXPECT_EQ(name.rfind("vulkan (", 0), 0u) << name;
    else
        EXPECT_EQ(name, "cpu");  // lavapipe alone is not a reason to leave Eigen
}

TEST(BackendSelection, GpuOnlyRefusesACpuImplementation) {
    QKV_REQUIRE_VULKAN(shared);
    if (anyGpu()) GTEST_SKIP() << "this machine has a GPU";
    VulkanOptions options;
    options.gpuOnly = true;
    const std::string message = errorOf([&] { createVulkanBackend(options); });
    EXPECT_NE(message.find("no GPU"), std::string::npos) << message;
}

TEST(BackendSelection, DevicesAreChosenByIndexOrName) {
    QKV_REQUIRE_VULKAN(shared);
    const auto devices = listVulkanDevices();
    const VulkanDeviceInfo& last = devices.back();
    VulkanOptions byIndex;
    byIndex.device = std::to_string(devices.size() - 1);
    EXPECT_EQ(createVulkanBackend(byIndex)->name(), "vulkan (" + last.name + ")");

    // A case-changed fragment of the name, through the environment variable.
    std::string fragment = last.name.substr(0, 4);
    for (char& c : fragment) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    {
        ScopedEnvironment env("QKV_VULKAN_DEVICE", fragment.c_str());
        EXPECT_NE(createVulkanBackend()->name().find(last.name.substr(0, 4)), std::string::npos);
    }

    VulkanOptions missing;
    missing.device = "no-such-device";
    std::string message = errorOf([&] { createVulkanBackend(missing); });
    EXPECT_NE(message.find("no-such-device"), std::string::npos) << message;
    EXPECT_NE(message.find(last.name), std::string::npos) << "lists the devices: " << message;
    missing.device = "99";
    EXPECT_FALSE(errorOf([&] { createVulkanBackend(missing); }).empty());
}

TEST(BackendSelection, MissingLoaderIsAClearErrorAndAutoFallsBack) {
    ScopedEnvironment env("QKV_VULKAN_LIBRARY", "libvulkan-that-does-not-exist.so.1");
    const std::string message = errorOf([] { createBackend("vulkan"); });
    EXPECT_NE(message.find("Vulkan is not available"), std::string::npos) << message;
    EXPECT_NE(message.find("libvulkan-that-does-not-exist.so.1"), std::string::npos) << message;
    EXPECT_TRUE(listVulkanDevices().empty());
    EXPECT_EQ(createBackend("auto")->name(), "cpu");
}

TEST(BackendSelection, MissingDriverIsAClearErrorAndAutoFallsBack) {
    // The loader finds no driver manifest: vkCreateInstance fails or no device is listed.
    ScopedEnvironment icd("VK_ICD_FILENAMES", "/nonexistent/icd.json");
    ScopedEnvironment drivers("VK_DRIVER_FILES", "/nonexistent/icd.json");
    const std::string message = errorOf([] { createBackend("vulkan"); });
    EXPECT_NE(message.find("Vulkan"), std::string::npos) << message;
    EXPECT_NE(message.find("cpu backend"), std::string::npos) << message;
    EXPECT_TRUE(listVulkanDevices().empty());
    EXPECT_EQ(createBackend("auto")->name(), "cpu");
}

}  // namespace
}  // namespace qkv
