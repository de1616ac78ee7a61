#!/usr/bin/env bash
# Valgrind's memcheck on qkvlab-cli's analyze of a sentence (the reader, the forward with its
# captured scores and the weight analysis in one run), one shared reference model of each
# model_type: memcheck sees reads of uninitialised memory that AddressSanitizer does not (an
# uninitialised factor once moved DeepSeek's layer numbers from run to run). Any error fails.
#   scripts/memcheck.sh [BUILD]     BUILD: the build tree with app/qkvlab-cli (default build)
# Models come from ../shared/models (or $QKV_SHARED_DIR); without them it says so and passes.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${1:-build}/app/qkvlab-cli
shared=${QKV_SHARED_DIR:-../shared}
if [ ! -d "$shared/models" ]; then
  echo "memcheck: no shared reference models in $shared/models; skipped"
  exit 0
fi
command -v valgrind >/dev/null || { echo "memcheck: valgrind is not installed" >&2; exit 1; }

# One folder per model_type, among those the CLI opens (pending families are refused).
declare -A seen=()
models=()
for folder in "$shared"/models/*/; do
  folder=${folder%/}
  [ -f "$folder/hf_reference.json" ] || continue
  type=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("model_type",""))' \
         "$folder/config.json")
  [ -n "${seen[$type]:-}" ] && continue
  "$cli" info --model "$folder" >/dev/null 2>&1 || continue
  seen[$type]=1
  models+=("$folder")
done

# Valgrind runs the program's threads one at a time: one BLAS thread saves only switches; the
# models run side by side, one per core.
export OPENBLAS_NUM_THREADS=1

# check FOLDER: analyze of the reference's first sentence under memcheck; prints "passed" or
# "failed", and a failing run's report.
check() {
  local folder=$1 ids command log
  # The reference's first sentence: ids every model's vocabulary holds.
  ids=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["sentences"][0]
print(",".join(map(str, s["input_ids"])))' "$folder/hf_reference.json")
  command="analyze --no-copying-score --ids $ids"
  log=$(mktemp)
  # Without --track-origins a run takes a third less time and finds the same errors; a failing
  # one is run again with it, so that its report says where an uninitialised value came from.
  # shellcheck disable=SC2086
  if valgrind --tool=memcheck --error-exitcode=99 --quiet \
       --log-file="$log" "$cli" $command --model "$folder" --backend cpu >/dev/null 2>>"$log"
  then
    echo passed
  else  # 99: memcheck's errors; anything else: the command itself failed
    echo "memcheck: $(basename "$folder") $command:"
    # shellcheck disable=SC2086
    valgrind --tool=memcheck --track-origins=yes --quiet --log-file="$log" \
      "$cli" $command --model "$folder" --backend cpu >/dev/null 2>>"$log" || true
    cat "$log"
    echo failed
  fi
  rm -f "$log"
}

results=$(mktemp -d)
for i in "${!models[@]}"; do
  check "${models[$i]}" > "$results/$i" 2>&1 &
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
done
wait
for i in "${!models[@]}"; do grep -v '^passed$' "$results/$i" | grep -v '^failed$' || true; done
checks=$(cat "$results"/* | grep -cE '^(passed|failed)$' || true)
failed=$(cat "$results"/* | grep -c '^failed$' || true)
rm -rf "$results"
echo "memcheck: $((checks - failed)) passed, $failed failed (${#models[@]} models, analyze of a sentence)"
[ "$failed" -eq 0 ] && [ "$checks" -eq "${#models[@]}" ]
