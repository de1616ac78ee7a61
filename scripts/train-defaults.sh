#!/usr/bin/env bash
# Trains the four embedded default models, resources/models/qkv-stories-{learned,shared-qk,
# tied-kv,single-w}: one GPT-2 architecture (4 layers, 4 heads, d_model 128, context 128) trained
# on the built-in story corpus with the same steps, data and seed under each attention tying,
# then scores each with `qkvlab-cli evaluate` (evaluation.json beside training_log.json).
# Each run uses one thread, so the models are the same on every machine with the same OpenBLAS
# kernel; as many run at once as there are cores (at most four). About 14 CPU-minutes in all.
#   scripts/train-defaults.sh          train into resources/models
#   scripts/train-defaults.sh DIR      train into DIR instead
# A variant's folder is replaced only when its run has finished.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-resources/models}"

scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target qkvlab-cli
cli="$PWD/build/app/qkvlab-cli"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# Runs train from a staging folder beside the output, so training_log.json records the plain
# "--out qkv-stories-..." and an unfinished run never replaces a model. Explicit "|| return":
# errexit does not apply inside a function called as an if condition.
stage="$out/.staging"
train_variant() {
  local config="$1" name="qkv-stories-$1"
  rm -rf "${stage:?}/$name"
  (cd "$stage" && "$cli" train --config "$config" --layers 4 --heads 4 --d-model 128 \
      --context 128 --corpus builtin --vocab 1024 --steps 2000 --batch 16 --lr 0.006 --seed 1 \
      --eval-interval 100 --threads 1 --out "$name") >"$logs/$config.log" 2>&1 || return 1
  "$cli" evaluate --model "$stage/$name" --json >"$stage/$name/evaluation.json.tmp" || return 1
  mv "$stage/$name/evaluation.json.tmp" "$stage/$name/evaluation.json" || return 1
  rm -rf "${out:?}/$name" && mv "$stage/$name" "$out/$name"
}
mkdir -p "$stage"

jobs=$(nproc)
[ "$jobs" -gt 4 ] && jobs=4
echo "training 4 variants, $jobs at a time (logs in $logs) ..."
for config in learned shared-qk tied-kv single-w; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  (
    if train_variant "$config"; then echo ok >"$logs/$config.status"; fi
    echo "[$(date +%T)] $config: $(tail -n 2 "$logs/$config.log" | head -n 1)"
  ) &
done
wait

failed=0
for config in learned shared-qk tied-kv single-w; do
  if [ ! -f "$logs/$config.status" ]; then
    echo "$config failed:" >&2
    tail -n 20 "$logs/$config.log" >&2
    failed=1
  fi
done
[ "$failed" -eq 0 ] || exit 1
rmdir "$stage"
echo "done in $((SECONDS / 60)) min $((SECONDS % 60)) s; models in $out"
