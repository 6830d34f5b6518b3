#!/usr/bin/env bash
# Install vramdesk from this checkout and open the window: the README's one command.
#   usage: tools/install.sh [--dry-run] [--no-open] [--no-menu]
#     --dry-run   print every command instead of running it (nothing is installed)
#     --no-open   install, but do not open the window at the end
#     --no-menu   skip the application-menu entry (vramdesk install-desktop)
# Steps:
#  1. Debian/Ubuntu (dpkg and apt-get present): the system libraries that Qt's xcb platform
#     plugin and the Qt libraries under it link (XCB_PACKAGES; tests/test_install_script.py
#     checks the list against the plugin's ELF NEEDED entries), python3-venv when `python3 -m
#     venv` cannot work, and on a GTK-based desktop the GTK 3 library of Qt's gtk3 platform
#     theme, which gives the window the desktop's dark or light palette (THEME_PACKAGES: Qt
#     loads that theme on GNOME, X-Cinnamon, Unity, MATE, XFCE and LXDE; qtbase
#     src/gui/platform/unix/qgenericunixthemes.cpp, QGenericUnixTheme::themeNames). Only
#     missing packages are installed, through sudo when not root; under a ja locale also the
#     Japanese font the window prefers (fonts-noto-cjk).
#  2. python3 -m venv .venv && .venv/bin/pip install -e .
#  3. .venv/bin/vramdesk install-desktop (menu entry and icons under ~/.local/share)
#  4. .venv/bin/vramdesk (the window)
set -euo pipefail

XCB_PACKAGES=(
  libdbus-1-3
  libegl1
  libfontconfig1
  libfreetype6
  libgl1
  libglib2.0-0
  libx11-6
  libx11-xcb1
  libxcb-cursor0
  libxcb-icccm4
  libxcb-image0
  libxcb-keysyms1
  libxcb-randr0
  libxcb-render-util0
  libxcb-render0
  libxcb-shape0
  libxcb-shm0
  libxcb-sync1
  libxcb-util1
  libxcb-xfixes0
  libxcb-xkb1
  libxcb1
  libxkbcommon-x11-0
  libxkbcommon0
  libzstd1
  zlib1g
)
THEME_PACKAGES=(libgtk-3-0)
# a Japanese font with a real bold face, under a Japanese locale (README: the Japanese interface)
JA_FONT_PACKAGES=(fonts-noto-cjk)
GTK_DESKTOPS="GNOME X-CINNAMON UNITY MATE XFCE LXDE"

dry_run=0 open_app=1 menu=1
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=1 ;;
    --no-open) open_app=0 ;;
    --no-menu) menu=0 ;;
    -h | --help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."

run() {
  if [ "$dry_run" = 1 ]; then
    printf '%s\n' "$*"
  else
    "$@"
  fi
}

# Installed under its own name, or under Ubuntu 24.04's and Debian 13's 64-bit time name
# (libglib2.0-0t64, libgtk-3-0t64), which provides the old one.
installed() {
  local status
  for name in "$1" "$1t64"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$name" 2>/dev/null || true)
    [ "$status" = installed ] && return 0
  done
  return 1
}

gtk_desktop() {
  local d desktops=${XDG_CURRENT_DESKTOP:-}  # unset on a console or under ssh (set -u)
  for d in ${desktops//:/ }; do
    case " $GTK_DESKTOPS " in *" ${d^^} "*) return 0 ;; esac
  done
  return 1
}

python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null; then
  echo "install.sh: $python is not installed (vramdesk needs Python 3.11 or newer)" >&2
  exit 1
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "install.sh: vramdesk needs Python 3.11 or newer; $python is $("$python" -V 2>&1)" >&2
  exit 1
fi

if command -v dpkg-query >/dev/null && command -v apt-get >/dev/null; then
  wanted=("${XCB_PACKAGES[@]}")
  if gtk_desktop; then
    wanted+=("${THEME_PACKAGES[@]}")
  fi
  case "${LC_ALL:-${LC_MESSAGES:-${LANG:-}}}" in
    ja*) wanted+=("${JA_FONT_PACKAGES[@]}") ;;
  esac
  if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
    wanted+=("python3-venv")  # Debian's python3 ships venv without ensurepip
  fi
  missing=()
  for pkg in "${wanted[@]}"; do
    installed "$pkg" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    sudo=()
    [ "$(id -u)" = 0 ] || sudo=(sudo)
    echo "install.sh: installing the system libraries the window needs: ${missing[*]}"
    run "${sudo[@]}" apt-get update -qq
    run "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends "${missing[@]}"
  fi
else
  echo "install.sh: not a Debian/Ubuntu system: install Qt 6's xcb libraries yourself if the" \
    "window does not open (vramdesk names any that are missing)"
fi

run "$python" -m venv .venv
run .venv/bin/pip install -q -e .
if [ "$menu" = 1 ] && [ "$(uname -s)" = Linux ]; then
  run .venv/bin/vramdesk install-desktop
fi
if [ "$open_app" = 1 ]; then
  if [ "$dry_run" = 1 ]; then
    printf '%s\n' ".venv/bin/vramdesk"
  else
    exec .venv/bin/vramdesk
  fi
fi
