#include "tests/gpu/gpu_test_support.h"

#include <cctype>

#include "tests/support/shared_assets.h"
#include "tests/support/shared_models.h"

namespace qkv::test {
namespace {

struct SharedBackend {
    Backend* backend = nullptr;  // deliberately never deleted (see the header)
    std::string reason;
};

const SharedBackend& shared() {
    static const SharedBackend instance = [] {
        SharedBackend s;
        try {
            s.backend = createVulkanBackend().release();
        } catch (const Error& e) {
            s.reason = e.what();
        }
        return s;
    }();
    return instance;
}

// Opens the device before any test, whether or not the test itself uses it.
class OpenDeviceFirst : public testing::Environment {
  public:
    void SetUp() override { shared(); }
};

[[maybe_unused]] testing::Environment* const kOpenDeviceFirst =
    testing::AddGlobalTestEnvironment(new OpenDeviceFirst);

}  // namespace

Backend* sharedVulkanBackend(std::string* why) {
    if (why) *why = shared().reason;
    return shared().backend;
}

std::vector<std::string> sharedModelCases() {
    const auto shared = sharedDir();
    return shared ? supportedSharedModelNames(*shared) : std::vector<std::string>{"none"};
}

std::string sharedModelCaseName(const testing::TestParamInfo<std::string>& info) {
    std::string name = info.param;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

}  // namespace qkv::test
