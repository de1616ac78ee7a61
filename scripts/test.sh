#!/usr/bin/env bash
# Sets up, builds and runs every test suite: core_tests, gpu_tests (on Mesa's software Vulkan
# device when no GPU exists) and ui_tests (offscreen), then the same core and GPU suites built
# with AddressSanitizer + UndefinedBehaviorSanitizer.
#   scripts/test.sh            everything
#   scripts/test.sh --quick    skip the sanitizer build
# Reference checkpoints are read from ../shared (or $QKV_SHARED_DIR); without them those tests
# skip with a message and the project's own fixtures still run.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = "--quick" ] && quick=1

scripts/setup.sh
jobs=$(nproc)

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

if [ "$quick" -eq 0 ]; then
  cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug \
        -DQKV_SANITIZE=address,undefined -DQKV_BUILD_GUI=OFF -DQKV_BUILD_BENCH=OFF
  cmake --build build-sanitize -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-sanitize --output-on-failure -j "$jobs"
fi
echo "All tests passed."
