#!/usr/bin/env bash
# Sets up, checks the formatting of every C++ file, builds the release tree and runs its suites:
# gpu_tests (on Mesa's software Vulkan device when no GPU exists), real_config_tests, ui_tests
# and ui_thread_tests (offscreen), cli_tests, fuzz_regression_tests and the Python module's; then
#   - the Debian package of the release build, installed, checked and removed
#     (scripts/test-package.sh),
#   - core_tests and the GPU suite built with AddressSanitizer + UndefinedBehaviorSanitizer
#     (clang): the one run of core_tests,
#   - valgrind's memcheck on the command line's analyze of a sentence, one shared model of each
#     model_type (scripts/memcheck.sh: uninitialised reads, which ASan does not see),
#   - the worker/GUI threading tests (label threads) built with ThreadSanitizer,
#   - each libFuzzer target of tests/fuzz for 10 seconds (scripts/fuzz.sh runs them long).
#   scripts/test.sh            everything
#   scripts/test.sh --quick    only the release build, core_tests included, and its tests
# Reference checkpoints are read from ../shared (or $QKV_SHARED_DIR); without them those tests
# skip with a message and the project's own fixtures still run. Prints each step's time.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = "--quick" ] && quick=1

timings=()
results=()
# tested NAME CTEST-ARGS...: runs ctest and keeps its verdict line for the final summary
tested() {
  local name=$1 log
  shift
  log=$(mktemp)
  ctest "$@" | tee "$log"
  results+=("$(printf '%-28s %s' "$name" "$(grep -E 'tests passed|tests failed' "$log" | tail -1)")")
  if grep -q 'did not run' "$log"; then
    results+=("$(printf '%-28s %s' '' "skipped: $(grep -c '(Skipped)' "$log")")")
  fi
  rm -f "$log"
}

step() {  # step NAME COMMAND...: runs and times one step
  local name=$1 start=$SECONDS
  shift
  echo "=== $name"
  "$@"
  timings+=("$(printf '%-28s %5ds' "$name" $((SECONDS - start)))")
}

# The Vulkan op table (hundreds of small cases) runs as one process: one process per case spends
# most of its time starting lavapipe. Each suite runs once: the full run leaves core_tests to the
# AddressSanitizer step, where its asserts are on as well (--quick builds and runs them here).
release() {
  local core_tests=OFF
  [ "$quick" -eq 1 ] && core_tests=ON
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DQKV_CORE_TESTS=$core_tests
  cmake --build build -j "$jobs"
  tested release --test-dir build --output-on-failure -j "$jobs" -E '^Table/VulkanOps\..*$'
  one_process "release Vulkan op table" build/tests/gpu_tests 'Table/VulkanOps.*'
}

# The sanitizer builds compile with -O1, as the sanitizers' documentation advises (their tests run
# about three times faster than at -O0 with the same checks), and -g1 (file and line in reports).
sanitizer_flags=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g1 -O1")

# The AddressSanitizer build is clang's, with the libFuzzer targets: the fuzz step then runs them
# from this tree instead of building the parsers a third time. It builds and runs core_tests, the
# only run of them in the full test (every reader, tokenizer, forward, analysis and training
# step), gpu_tests for the Vulkan backend's host code, and the fuzz regressions. The command line
# is a client of the same core: the release step runs its tests.
address_sanitizer() {
  scripts/setup.sh clang libclang-rt-14-dev
  cmake -S . -B build-sanitize -G Ninja -DCMAKE_CXX_COMPILER=clang++ "${sanitizer_flags[@]}" \
        -DQKV_SANITIZE=address,undefined -DQKV_BUILD_FUZZERS=ON \
        -DQKV_BUILD_GUI=OFF -DQKV_BUILD_BENCH=OFF -DQKV_BUILD_PYTHON=OFF
  local fuzzers
  fuzzers=$(ninja -C build-sanitize -t targets all | sed -n 's/^\([a-z0-9_]*_fuzzer\): .*/\1/p')
  # shellcheck disable=SC2086
  cmake --build build-sanitize -j "$jobs" \
        --target core_tests gpu_tests fuzz_regression_tests $fuzzers
  # The real-config forwards (gigabytes of zero weights through unoptimised conversions) are not
  # built here: the release step runs them; the same readers and binders run here on the shared
  # reference models. The Vulkan backend's host code is the same for every family once its ops
  # are chosen: its forward and prefix reuse run here on layouts that differ in ops (GPT-2's fused
  # Conv1D, BERT's encoder, Llama's grouped queries, an encoder-decoder, T5's position buckets,
  # QK-norm, a mixture of experts); the release step runs all of them. The Vulkan op table runs
  # as one process, as in the release step: its cases need 7 seconds, while a process per case
  # spent 20 minutes starting lavapipe and checking for leaks at exit.
  local vulkan_kept='gpt2_random_tiny|bert_random_tiny|llama_random_gqa|marian_random_tiny'
  vulkan_kept+='|t5_random_tiny|qwen3_random_tiny|mixtral_random_tiny'
  local skipped='SharedModels/VulkanPrefixReuse\..*'
  skipped+='|Table/VulkanOps\..*'
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  local model rest=()
  for model in $(ctest --test-dir build-sanitize -N -R '^SharedModels/VulkanForward\.' |
                 sed -n 's|.*SharedModels/VulkanForward\.[A-Za-z]*/\([A-Za-z0-9_]*\) .*|\1|p' |
                 sort -u); do
    [[ $model =~ ^($vulkan_kept)$ ]] || rest+=("$model")
  done
  if [ ${#rest[@]} -gt 0 ]; then
    local others
    others=$(IFS='|'; echo "${rest[*]}")
    skipped+="|SharedModels/VulkanForward\..*/($others)( .*)?"
  fi
  tested asan+ubsan --test-dir build-sanitize --output-on-failure -j "$jobs" \
    -L '^(core|gpu)$' -E "^($skipped)$"
  LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp \
    one_process "asan+ubsan Vulkan op table" build-sanitize/tests/gpu_tests 'Table/VulkanOps.*'
  unset ASAN_OPTIONS UBSAN_OPTIONS
}

# The release tree's command line under memcheck; its closing line joins the summary.
memcheck() {
  local log
  log=$(mktemp)
  scripts/memcheck.sh build | tee "$log"
  results+=("$(printf '%-28s %s' memcheck "$(grep '^memcheck: .* passed' "$log" | tail -1)")")
  rm -f "$log"
}

# one_process NAME BINARY FILTER: the binary's tests matching FILTER in one process
one_process() {
  local name=$1 log
  log=$(mktemp)
  "$2" --gtest_filter="$3" --gtest_brief=1 | tee "$log"
  results+=("$(printf '%-28s %s' "$name" "$(grep -E '^\[  PASSED  \]' "$log" | tail -1)")")
  rm -f "$log"
}

# Qt is not built with ThreadSanitizer, so its own synchronisation is invisible to it;
# tests/tsan.supp silences what that causes inside Qt's libraries, never project code. Clang and
# -O1, as for AddressSanitizer: the build takes a fifth less time than GCC's at -O0, and the
# tests run several times faster.
thread_sanitizer() {
  scripts/setup.sh clang libclang-rt-14-dev
  cmake -S . -B build-tsan -G Ninja -DCMAKE_CXX_COMPILER=clang++ "${sanitizer_flags[@]}" \
        -DQKV_SANITIZE=thread -DQKV_BUILD_BENCH=OFF -DQKV_BUILD_PYTHON=OFF
  local targets=() all
  all=$(ninja -C build-tsan -t targets all)
  for t in ui_thread_tests; do
    grep -q "^$t:" <<< "$all" && targets+=("$t")
  done
  if [ ${#targets[@]} -eq 0 ]; then
    echo "no threading test target (ui_thread_tests) in this build; ThreadSanitizer step skipped"
    return 0
  fi
  cmake --build build-tsan -j "$jobs" --target "${targets[@]}"
  local options="halt_on_error=1:history_size=7:second_deadlock_stack=1"
  TSAN_OPTIONS="$options:suppressions=$PWD/tests/tsan.supp" \
    tested tsan --test-dir build-tsan --output-on-failure -L '^threads$'
}

# Every C++ file is in the .clang-format style (Debian's clang-format); a diff fails the run.
format_check() {
  local files
  files=$(git ls-files '*.cpp' '*.h' 2>/dev/null) ||
    files=$(find app bench core gpu tests ui -name '*.cpp' -o -name '*.h')
  xargs clang-format --dry-run --Werror <<< "$files"
}

step setup scripts/setup.sh
step "format check" format_check
jobs=$(nproc)
step "release build + tests" release
if [ "$quick" -eq 0 ]; then
  step "Debian package" scripts/test-package.sh build
  step "asan+ubsan build + tests" address_sanitizer
  step "memcheck (valgrind)" memcheck
  step "tsan build + threading tests" thread_sanitizer
  # The sanitizer tree's libFuzzer binaries, one per core.
  step "fuzz targets, 10 s each" env QKV_FUZZ_BUILD=build-sanitize QKV_FUZZ_PARALLEL="$jobs" \
    scripts/fuzz.sh 10
fi
echo "Step times:"
printf '  %s\n' "${timings[@]}"
echo "Test results:"
printf '  %s\n' "${results[@]}"
echo "All tests passed."
