#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan) into build-fuzz/ and runs
# each for a fixed time, appending its executions to build-fuzz/fuzz-log.tsv; prints the totals
# per target over every run so far.
#   scripts/fuzz.sh [seconds-per-target] [target...]     default: 600 s, every target
#   QKV_FUZZ_PARALLEL=N scripts/fuzz.sh ...               run N targets at a time (default 1)
#   QKV_FUZZ_RUNS=N scripts/fuzz.sh ...                   stop each target after N executions
#                                                         (or the time limit, whichever is first)
#   QKV_FUZZ_TIMEOUT=S scripts/fuzz.sh ...                a unit running S seconds is a hang
#                                                         (default 10; raise it for runs that
#                                                         share the machine with other work)
#   QKV_FUZZ_BUILD=DIR scripts/fuzz.sh ...                use DIR, a tree already configured
#                                                         with clang, -DQKV_BUILD_FUZZERS=ON and
#                                                         the sanitizers (scripts/test.sh's
#                                                         sanitizer tree), instead of build-fuzz
# Each target keeps a growing corpus in build-fuzz/corpus/<target> (under QKV_FUZZ_BUILD's tree
# where that is set; the same for artifacts and logs), seeded from the committed
# tests/fuzz/corpus/<target> and, when present, small files of the shared models (../shared or
# $QKV_SHARED_DIR). Crashes, leaks, timeouts (see QKV_FUZZ_TIMEOUT) and allocations over 2 GB
# (-rss_limit_mb) are written to build-fuzz/artifacts/<target>/ and fail the run; once fixed,
# copy the input to tests/fuzz/regressions/<target>/ so fuzz_regression_tests replays it.
# Runs at the lowest CPU priority so interactive builds keep theirs.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true

scripts/setup.sh clang libclang-rt-14-dev
build=${QKV_FUZZ_BUILD:-build-fuzz}
if [ -z "${QKV_FUZZ_BUILD:-}" ]; then
  cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DQKV_SANITIZE=address,undefined -DQKV_BUILD_FUZZERS=ON -DQKV_BUILD_TESTS=OFF \
        -DQKV_BUILD_GUI=OFF -DQKV_BUILD_BENCH=OFF -DQKV_BUILD_PYTHON=OFF >/dev/null
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(sed -n '/^set(QKV_FUZZ_TARGETS/,/)/p' tests/fuzz/CMakeLists.txt |
                         tr -d '()' | tr ' ' '\n' | grep -v -e '^set$' -e QKV_FUZZ_TARGETS -e '^$')
fi
nice -n 19 cmake --build "$build" -j "$(nproc)" --target "${targets[@]/%/_fuzzer}"

shared=${QKV_SHARED_DIR:-../shared}
log=$build/fuzz-log.tsv
timeout=${QKV_FUZZ_TIMEOUT:-10}
runs=${QKV_FUZZ_RUNS:--1}

# Small real files from the shared models as extra seeds (never committed).
seed_from_shared() {
  local target=$1 seeds=$2
  mkdir -p "$seeds"
  # The real configs the project describes reach every family's reader, hybrids included.
  [ "$target" = model_config ] && cp tests/data/real-configs/*.json "$seeds"/
  [ -d "$shared/models" ] || return 0
  local model
  for model in "$shared"/models/*/; do
    local name; name=$(basename "$model")
    case $target in
      model_config) cp "$model/config.json" "$seeds/$name.json" 2>/dev/null || true ;;
      gpt2_vocab_json) [ "$(stat -c %s "$model/vocab.json" 2>/dev/null || echo 99999)" -lt 4096 ] &&
                         cp "$model/vocab.json" "$seeds/$name.json" || true ;;
      gpt2_merges) [ -f "$model/merges.txt" ] && head -c 3000 "$model/merges.txt" > "$seeds/$name.txt" || true ;;
      bert_vocab_txt) [ -f "$model/vocab.txt" ] &&
                        { printf '\0'; head -n 400 "$model/vocab.txt"; } > "$seeds/$name.txt" || true ;;
    esac
  done
}

dict_for() {
  case $1 in
    safetensors|safetensors_index) echo tests/fuzz/dict/safetensors.dict ;;
    model_config) echo tests/fuzz/dict/model_config.dict ;;
    tokenizer_json) echo tests/fuzz/dict/tokenizer_json.dict ;;
    gpt2_vocab_json) echo tests/fuzz/dict/json.dict ;;
  esac
}

run_target() {
  local target=$1
  local corpus=$build/corpus/$target seeds=$build/seeds/$target
  local artifacts=$build/artifacts/$target/ out=$build/logs/$target.log
  mkdir -p "$corpus" "$artifacts" "$build/logs"
  seed_from_shared "$target" "$seeds"
  local dict; dict=$(dict_for "$target")
  local rc=0
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    nice -n 19 "$build/tests/fuzz/${target}_fuzzer" -max_total_time="$seconds" -timeout="$timeout" \
      -runs="$runs" \
      -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 -artifact_prefix="$artifacts" \
      ${dict:+-dict="$dict"} "$corpus" "tests/fuzz/corpus/$target" "$seeds" > "$out" 2>&1 || rc=$?
  local execs seconds_run
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -1)
  seconds_run=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$out" | tail -1)
  printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$target" "${execs:-0}" \
    "${seconds_run:-$seconds}" "$rc" >> "$log"
  local units; units=$(find "$corpus" -type f | wc -l)
  if [ "$rc" -ne 0 ]; then
    echo "FAIL $target (exit $rc, ${execs:-0} executions): see $out and $artifacts" >&2
    echo "$target" >> "$failures"
    return 0
  fi
  echo "ok   $target: ${execs:-0} executions in ${seconds_run:-$seconds}s, corpus $units inputs"
}

failures=$build/failures.$$
rm -f "$failures"
parallel=${QKV_FUZZ_PARALLEL:-1}
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  run_target "$target" &
done
wait

echo "Executions per target over all runs logged in $log:"
awk -F'\t' '{ sum[$2] += $3; runs[$2]++ } END { for (t in sum) printf "  %-18s %12d  (%d runs)\n", t, sum[t], runs[t] }' \
  "$log" | sort
if [ -s "$failures" ]; then
  echo "Fuzzing failed: $(tr '\n' ' ' < "$failures")" >&2
  rm -f "$failures"
  exit 1
fi
rm -f "$failures"
