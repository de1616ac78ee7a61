#pragma once
// Whether a ui test's time limits mean anything in this build: optimised and without a sanitizer
// (ThreadSanitizer slows everything ~10x). Elsewhere the tests run the same steps, check their
// results and print the measurements unasserted.
#include <iostream>

namespace qkv::ui::test {

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)
constexpr bool kTimingsMeaningful = false;
#else
constexpr bool kTimingsMeaningful = true;
#endif

inline void printUnasserted() {
    std::cout << "[ measure  ] time limits not asserted in a sanitizer or debug build\n";
}

}  // namespace qkv::ui::test
