#pragma once
// The ui tests that time the GUI (suites named *ThreadTest) print what they measure and assert
// only what the code guarantees: a time limit would pass or fail with the machine's load. An
// optimised build without a sanitizer measures the whole work; debug and sanitizer builds
// (ThreadSanitizer slows everything ~10x) run the same steps on less of it.

namespace qkv::ui::test {

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)
constexpr bool kFullMeasurement = false;
#else
constexpr bool kFullMeasurement = true;
#endif

}  // namespace qkv::ui::test
