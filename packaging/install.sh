#!/usr/bin/env bash
# Install Anonymist into a virtual environment (.venv, or $ANONYMIST_VENV) and compile
# its numba kernels once. Works on a fresh Debian/Ubuntu (whose system Python refuses
# pip installs, PEP 668: python3-venv is installed with apt-get when missing), macOS
# and Git Bash on Windows.
#   bash packaging/install.sh          # the app
#   bash packaging/install.sh test     # the app and the test tools
#   bash packaging/install.sh "test,dev,docs"   # also ruff and MkDocs (packaging/run-tests.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${ANONYMIST_VENV:-.venv}"
PYTHON="${PYTHON:-python3}"
command -v "$PYTHON" >/dev/null || PYTHON=python

apt_install() {  # Debian/Ubuntu packages, when missing and apt-get can be used
  command -v dpkg >/dev/null && command -v apt-get >/dev/null || return 0
  local need="" sudo="" pkg
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || need="$need $pkg"; done
  [ -n "$need" ] || return 0
  [ "$(id -u)" -eq 0 ] || { command -v sudo >/dev/null && sudo="sudo -n"; }
  $sudo apt-get update -qq >/dev/null 2>&1 || true
  # only the names this release knows (Ubuntu 24.04 renamed some libraries: t64)
  local known=""
  for pkg in $need; do
    apt-cache show "$pkg" >/dev/null 2>&1 && known="$known $pkg" || echo "note: no package $pkg here" >&2
  done
  [ -n "$known" ] || return 0
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $known >/dev/null \
    || echo "warning: could not install$known" >&2
}

# The libraries Qt's X11 platform plugin (xcb) loads, as Qt's "Qt for X11 Requirements"
# lists them: without one the app aborts at start ("could not load the Qt platform plugin
# xcb"). `python -m app.platform_check` lists what is still missing.
QT_XCB_LIBRARIES="libfontconfig1 libfreetype6 libx11-6 libx11-xcb1 libxext6 libxfixes3 libxi6
  libxrender1 libxcb1 libxcb-cursor0 libxcb-glx0 libxcb-keysyms1 libxcb-image0 libxcb-shm0
  libxcb-icccm4 libxcb-sync1 libxcb-xfixes0 libxcb-shape0 libxcb-randr0 libxcb-render-util0
  libxcb-util1 libxcb-xinerama0 libxcb-xkb1 libxkbcommon0 libxkbcommon-x11-0 libegl1 libgl1
  libdbus-1-3 libglib2.0-0"

venv_python() {
  if [ -x "$VENV/bin/python" ]; then echo "$VENV/bin/python"; else echo "$VENV/Scripts/python.exe"; fi
}

if [ ! -x "$(venv_python)" ]; then
  if ! "$PYTHON" -m venv "$VENV" >/dev/null 2>&1; then
    rm -rf "$VENV"
    apt_install python3-venv
    "$PYTHON" -m venv "$VENV"
  fi
fi
PY="$(venv_python)"
case "$(uname -s)" in Linux) apt_install $QT_XCB_LIBRARIES ;; esac
extras="${1:-}"
"$PY" -m pip install -q --disable-pip-version-check -e ".${extras:+[$extras]}"
# bytecode of the sources (an editable install leaves none, and PYTHONDONTWRITEBYTECODE
# would keep every run compiling them: about 0.1 s of each command)
"$PY" -m compileall -q engine app >/dev/null
"$PY" -m app.warmup
