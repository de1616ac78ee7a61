#pragma once
// Helpers for the Vulkan tests: one backend per test process (creating a device and compiling
// pipelines is the slow part on lavapipe), random host matrices and downloads.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/backend/backend.h"
#include "core/util/error.h"
#include "gpu/vulkan_backend.h"
#include "tests/support/random_values.h"

namespace qkv::test {

// The process's Vulkan backend, or null (with the reason in `why`) when no device exists. It is
// created before the first test (see gpu_test_support.cpp) and never destroyed: while a device is
// open the Vulkan loader keeps the driver loaded, so state Mesa's lavapipe allocates once per
// process stays reachable instead of being reported by LeakSanitizer when the driver is unloaded.
Backend* sharedVulkanBackend(std::string* why = nullptr);

inline Backend& sharedCpuBackend() {
    static std::unique_ptr<Backend> backend = createCpuBackend();
    return *backend;
}

// The shared reference models QKV Lab opens, one test case each ({"none"} without ../shared: the
// cases then skip); folders of pending families are refused by name in core_tests.
std::vector<std::string> sharedModelCases();
// A shared model's folder name as a test name ("qwen3-random-tiny" -> "qwen3_random_tiny").
std::string sharedModelCaseName(const testing::TestParamInfo<std::string>& info);

inline std::vector<float> download(Backend& backend, const Tensor& t) {
    std::vector<float> values(static_cast<size_t>(t.rows()) * t.cols());
    backend.download(t, values.data());
    return values;
}

}  // namespace qkv::test

// Binds `var` to the shared Vulkan backend, or skips the test when no Vulkan device exists.
#define QKV_REQUIRE_VULKAN(var)                                               \
    std::string var##_why;                                                    \
    ::qkv::Backend* var##_ptr = ::qkv::test::sharedVulkanBackend(&var##_why); \
    if (!var##_ptr) GTEST_SKIP() << "no Vulkan device (" << var##_why << ")"; \
    [[maybe_unused]] ::qkv::Backend& var = *var##_ptr
