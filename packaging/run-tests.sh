#!/usr/bin/env bash
# The README's test command and CI's (.ci/run): install into the virtual environment
# (packaging/install.sh, with the test tools), install the system libraries Qt loads
# even offscreen when they are missing (Debian/Ubuntu), run the default test run.
# Arguments go to pytest: `bash packaging/run-tests.sh -m slow` runs the slow set.
set -euo pipefail
cd "$(dirname "$0")/.."
qt_libraries() {
  command -v dpkg >/dev/null && command -v apt-get >/dev/null || return 0
  local need="" sudo=""
  for pkg in libegl1 libgl1 libxkbcommon0 libfontconfig1 libdbus-1-3 libglib2.0-0 poppler-utils; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need="$need $pkg"
  done
  [ -n "$need" ] || return 0
  [ "$(id -u)" -eq 0 ] || { command -v sudo >/dev/null && sudo="sudo -n"; }
  ($sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $need) \
    >/dev/null || echo "warning: could not install$need" >&2
}
qt_libraries
bash packaging/install.sh test
VENV="${ANONYMIST_VENV:-.venv}"
PY="$VENV/bin/python"; [ -x "$PY" ] || PY="$VENV/Scripts/python.exe"
export QT_QPA_PLATFORM=offscreen
status=0
"$PY" -m pytest -q -p no:cacheprovider "$@" || status=$?
# The Spark backend in local mode, as a second step (not in the default run: a
# Spark session takes 30 s to minutes): only with no arguments, where Java is
# present; ANONYMIST_SKIP_SPARK=1 skips it. PySpark is ~300 MB.
if [ $# -eq 0 ] && [ -z "${ANONYMIST_SKIP_SPARK:-}" ] && command -v java >/dev/null; then
  "$PY" -m pip install -q "pyspark>=3.5" \
    && "$PY" -m pytest -q -p no:cacheprovider -m slow tests/engine/test_backend_spark.py \
    || status=$?
fi
exit $status
