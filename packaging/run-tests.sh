#!/usr/bin/env bash
# Install what the tests need (system libraries Qt loads even offscreen, the
# package with its test extras) and run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
need=""
for pkg in libegl1 libgl1 libxkbcommon0 libfontconfig1 libdbus-1-3 libglib2.0-0 poppler-utils; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need="$need $pkg"
done
if [ -n "$need" ] && command -v apt-get >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need) >/dev/null \
    || echo "warning: could not install$need" >&2
fi
python3 -m pip install -q -e ".[test]"
export QT_QPA_PLATFORM=offscreen
python3 -m pytest -q -p no:cacheprovider "$@"
