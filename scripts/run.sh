#!/usr/bin/env bash
# Sets up, builds and launches the QKV Lab desktop app on its embedded default model.
#   scripts/run.sh                 open the default model with an example sentence
#   scripts/run.sh PATH/TO/MODEL   open your own Hugging Face model folder
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target qkvlab
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ -z "${QT_QPA_PLATFORM:-}" ]; then
  echo "No display found: starting under a virtual X server (xvfb-run); set DISPLAY to see the window." >&2
  exec xvfb-run -a -s "-screen 0 1600x1000x24" build/app/qkvlab "$@"
fi
exec build/app/qkvlab "$@"
