#!/usr/bin/env bash
# Sets up, builds the release programs and makes the Debian package qkvlab_<version>_<arch>.deb.
#   scripts/package.sh                                  in build/, for this machine's CPU
#   scripts/package.sh BUILD_DIR -DQKV_NATIVE_ARCH=OFF  a package for any CPU of the architecture
# Install it with: sudo apt-get install ./build/qkvlab_*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
scripts/setup.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$(nproc)" --target qkvlab qkvlab-cli qkvlab_data
rm -f "$build"/qkvlab_*.deb
(cd "$build" && cpack -G DEB)
