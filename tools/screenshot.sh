#!/usr/bin/env bash
# Screenshot of the real vramdesk window (or any command) on a virtual X screen of a given size.
#   usage: tools/screenshot.sh OUT.png [WIDTHxHEIGHT] [SECONDS] [COMMAND ...]
#   defaults: 1366x768, 5 s, `vramdesk` (a fresh config directory unless VRAMDESK_CONFIG_DIR is set)
# A variant of ../shared/tools/screenshot.sh (fixed 1600x1000) for the laptop-sized screens the
# window must fit (1280x720, 1366x768). Installs what it needs on first use (Debian packages).
set -euo pipefail
out=${1:?usage: screenshot.sh OUT.png [WIDTHxHEIGHT] [SECONDS] [COMMAND ...]}; shift
size=${1:-1366x768}; [ $# -gt 0 ] && shift
wait_s=${1:-5}; [ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- vramdesk
need=()
command -v Xvfb >/dev/null || need+=(xvfb)
command -v import >/dev/null || need+=(imagemagick)
for lib in libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-xkb1 libxkbcommon-x11-0 fonts-noto-cjk; do
  dpkg -s "$lib" >/dev/null 2>&1 || need+=("$lib")
done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
config=${VRAMDESK_CONFIG_DIR:-$(mktemp -d)}
disp=":$(( (RANDOM % 400) + 100 ))"
Xvfb "$disp" -screen 0 "${size}x24" -nolisten tcp >/dev/null 2>&1 & xpid=$!
apid=
trap '[ -n "$apid" ] && kill "$apid" 2>/dev/null; kill "$xpid" 2>/dev/null || true' EXIT
sleep 1
DISPLAY=$disp QT_QPA_PLATFORM=xcb VRAMDESK_CONFIG_DIR=$config "$@" & apid=$!
sleep "$wait_s"
DISPLAY=$disp import -window root "$out"
echo "saved $out ($size)"
