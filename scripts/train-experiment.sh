#!/usr/bin/env bash
# The attention-variant experiment shipped in resources/experiments/attention-variants: all
# seven variants (learned, shared-qk, tied-kv, single-w, full-bilinear, scale-outside,
# shared-qk-reformer) for seeds 1-3, each trained like the default models (the same shape, data
# and learning rate) for half their steps, so that the 21 runs take about 45 minutes on two
# cores; one thread per run, as many runs at once as there are cores. It keeps every run's
# training_log.json and writes summary.json and summary.md; no weights.
# A run already finished in the folder by the same command is kept, so an interrupted
# experiment (Ctrl+C) resumes where it stopped.
#   scripts/train-experiment.sh          into resources/experiments/attention-variants
#   scripts/train-experiment.sh DIR      into DIR instead
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-resources/experiments/attention-variants}"

scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target qkvlab-cli
build/app/qkvlab-cli experiment --seeds 3 --layers 4 --heads 4 --d-model 128 --context 128 \
  --corpus builtin --vocab 1024 --steps 1000 --batch 16 --lr 0.006 --eval-interval 100 \
  --out "$out"
echo "done in $((SECONDS / 60)) min $((SECONDS % 60)) s; results in $out"
