#!/usr/bin/env bash
# Builds the Debian package from a built release folder (default `build`), installs it with
# apt-get, checks the installed programs, desktop entry, metainfo, man pages and icons, and removes
# the package again. Needs root (or sudo); refuses to run where a qkvlab package is installed
# already, so that the machine is left as it was. Called by scripts/test.sh after its release step.
#   scripts/test-package.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

fail() {
  echo "test-package: FAILED: $*" >&2
  exit 1
}
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || fail "need root (or sudo) to install the package"
  sudo_cmd=(sudo)
fi
if dpkg-query -W -f='${Status}' qkvlab 2>/dev/null | grep -q "install ok installed"; then
  fail "a qkvlab package is installed already; remove it first (apt-get remove qkvlab)"
fi
[ -x "$build/app/qkvlab-cli" ] || fail "$build/app/qkvlab-cli is missing: build $build first"

rm -f "$build"/qkvlab_*.deb
(cd "$build" && cpack -G DEB >/dev/null) || fail "cpack -G DEB in $build"
debs=("$build"/qkvlab_*_*.deb)
[ -f "${debs[0]}" ] && [ ${#debs[@]} -eq 1 ] || fail "cpack made no single qkvlab_<version>_<arch>.deb"
deb=$(realpath "${debs[0]}")
version=$(dpkg-deb -f "$deb" Version)
echo "$(basename "$deb"): $(du -h "$deb" | cut -f1)"
echo "Depends: $(dpkg-deb -f "$deb" Depends)"

remove() {
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get remove -y -qq qkvlab >/dev/null ||
    echo "test-package: could not remove the qkvlab package" >&2
}
trap remove EXIT
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "$deb" >/dev/null ||
  fail "apt-get install $deb"

cli=/usr/bin/qkvlab-cli
models=/usr/share/qkvlab/models
for f in /usr/bin/qkvlab $cli \
         /usr/share/applications/org.qkvlab.qkvlab.desktop \
         /usr/share/metainfo/org.qkvlab.qkvlab.metainfo.xml \
         /usr/share/mime/packages/qkvlab.xml \
         /usr/share/man/man1/qkvlab.1.gz /usr/share/man/man1/qkvlab-cli.1.gz \
         /usr/share/icons/hicolor/scalable/apps/qkvlab.svg \
         $models/qkv-stories-{learned,shared-qk,tied-kv,single-w}/model.safetensors; do
  [ -f "$f" ] || fail "the package does not install $f"
done
for size in 48 128 256; do
  png=/usr/share/icons/hicolor/${size}x${size}/apps/qkvlab.png
  [ -f "$png" ] || fail "the package does not install $png"
  # A PNG's width and height are the big-endian words at bytes 16 and 20.
  read -r w h < <(od -An -tu1 -j16 -N8 "$png" |
                  awk '{print $1*2^24+$2*2^16+$3*2^8+$4, $5*2^24+$6*2^16+$7*2^8+$8}')
  [ "$w $h" = "$size $size" ] || fail "$png is ${w}x$h, not ${size}x$size"
done

echo "--- $cli info"
info=$("$cli" info --model $models/qkv-stories-learned --json) || fail "$cli info"
echo "$info"
grep -q '"model_type":"gpt2"' <<< "$info" || fail "$cli info does not report the gpt2 model"
echo "--- $cli attention"
attention=$("$cli" attention --model $models/qkv-stories-learned --text "The cat sat on the mat." \
            --layer 0 --head 0 --no-scores) || fail "$cli attention"
echo "$attention"
grep -q "layer 0 head 0" <<< "$attention" || fail "$cli attention printed no head"

echo "--- python3 -c 'import qkvlab'"
python=$(cd / && /usr/bin/python3 -c "
import qkvlab
m = qkvlab.open('$models/qkv-stories-learned')
r = m.attention('The cat sat on the mat.', layers=0, heads=0)
print(qkvlab.__file__, m.info['model_type'], r.attention.shape)") || fail "import qkvlab"
echo "$python"
grep -q "^/usr/lib/python3/dist-packages/qkvlab/__init__.py gpt2 (1, 1, " <<< "$python" ||
  fail "the installed qkvlab module did not compute attention"

echo "--- qkvlab --version"
gui=$(QT_QPA_PLATFORM=offscreen timeout 30 /usr/bin/qkvlab --version) || fail "qkvlab --version"
echo "$gui"
grep -qF "$version" <<< "$gui" || fail "qkvlab --version does not print $version"

echo "--- desktop-file-validate, appstreamcli validate"
desktop-file-validate /usr/share/applications/org.qkvlab.qkvlab.desktop ||
  fail "desktop-file-validate"
appstreamcli validate --no-net /usr/share/metainfo/org.qkvlab.qkvlab.metainfo.xml ||
  fail "appstreamcli validate"
if [ -f /usr/share/mime/globs2 ]; then  # shared-mime-info's trigger has rebuilt the database
  grep -q '^[0-9]*:application/x-qkvlab-session:\*\.qkvlab$' /usr/share/mime/globs2 ||
    fail "the MIME database does not map *.qkvlab to application/x-qkvlab-session"
fi

echo "--- man pages"
for page in qkvlab qkvlab-cli; do
  warnings=$(MANWIDTH=80 man --warnings -l /usr/share/man/man1/$page.1.gz 2>&1 >/dev/null)
  [ -z "$warnings" ] || fail "man $page warns: $warnings"
done
manual=$(MANWIDTH=80 man -l /usr/share/man/man1/qkvlab-cli.1.gz 2>/dev/null) || fail "man qkvlab-cli"
# Every command of `qkvlab-cli --help` has its entry in the man page.
commands=$("$cli" --help | sed -n '/^commands:/,$p' | awk 'NR > 1 && NF {print $1}')
[ -n "$commands" ] || fail "no commands in qkvlab-cli --help"
for command in $commands; do
  grep -qE "^ {7}$command( |$)" <<< "$manual" || fail "man qkvlab-cli does not describe $command"
done
echo "man qkvlab-cli describes: $(tr '\n' ' ' <<< "$commands")"
echo "Package $(basename "$deb") installs and works."
