#pragma once
// One fuzz target per file entry point. A target body receives arbitrary bytes and must return
// normally or throw qkv::Error (a clear message for a hostile or broken file); any other
// exception, a crash, a sanitizer report or a broken invariant (FUZZ_CHECK) is a bug.
//
// Built with QKV_LIBFUZZER the target is the binary's LLVMFuzzerTestOneInput; otherwise it is
// registered by name so fuzz_regression_tests can replay the committed inputs through it in the
// ordinary (gcc) test build.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "core/util/error.h"

namespace qkv::fuzz {

using TargetFunction = void (*)(std::string_view input);

std::map<std::string, TargetFunction>& registry();

struct Registration {
    Registration(const char* name, TargetFunction function) { registry()[name] = function; }
};

// Runs a target body, letting only qkv::Error through as an expected outcome.
inline void runTarget(TargetFunction function, const std::uint8_t* data, std::size_t size) {
    try {
        function(std::string_view(reinterpret_cast<const char*>(data), size));
    } catch (const Error&) {
    }
}

[[noreturn]] inline void checkFailed(const char* condition, const char* file, int line) {
    std::fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, condition);
    std::abort();
}

}  // namespace qkv::fuzz

#define FUZZ_CHECK(condition) \
    ((condition) ? (void)0 : ::qkv::fuzz::checkFailed(#condition, __FILE__, __LINE__))

#ifdef QKV_LIBFUZZER
// LLVMFuzzerInitialize runs the body once on the empty input before any input is timed, so
// that its fixtures (static tokenizers, loaded on first use) are built outside every unit's
// -timeout: under a sanitizer on a busy machine GPT-2's vocabulary took longer than one.
#define QKV_FUZZ_TARGET(name)                                                           \
    static void name##Body(std::string_view input);                                     \
    extern "C" int LLVMFuzzerInitialize(int*, char***) {                                \
        ::qkv::fuzz::runTarget(&name##Body, nullptr, 0);                                \
        return 0;                                                                       \
    }                                                                                   \
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
        ::qkv::fuzz::runTarget(&name##Body, data, size);                                \
        return 0;                                                                       \
    }                                                                                   \
    static void name##Body(std::string_view input)
#else
#define QKV_FUZZ_TARGET(name)                                                      \
    static void name##Body(std::string_view input);                                \
    static const ::qkv::fuzz::Registration name##Registration(#name, &name##Body); \
    static void name##Body(std::string_view input)
#endif
