#!/usr/bin/env bash
# The README's test command and CI's (.ci/run): install into the virtual environment
# (packaging/install.sh, with the test, lint and documentation tools), install the
# system libraries Qt loads even offscreen when they are missing (Debian/Ubuntu), run
# the default test run, `ruff check .` and `mkdocs build --strict`; any failure fails
# the run. Arguments go to pytest: `bash packaging/run-tests.sh -m slow` runs the slow
# set (the linter and the documentation build run only without arguments).
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
bash packaging/install.sh "test,dev,docs"
VENV="${ANONYMIST_VENV:-.venv}"
PY="$VENV/bin/python"; [ -x "$PY" ] || PY="$VENV/Scripts/python.exe"
export QT_QPA_PLATFORM=offscreen
status=0
"$PY" -m pytest -q -p no:cacheprovider "$@" || status=$?
if [ $# -eq 0 ]; then
  echo "ruff check ."
  "$PY" -m ruff check . || status=$?
  echo "mkdocs build --strict (the documentation site, into site/)"
  NO_MKDOCS_2_WARNING=1 "$PY" -m mkdocs build --strict --quiet || status=$?
fi
# The Spark backend in local mode and on a standalone cluster on 127.0.0.1, as a second step (not in the default run: a
# Spark session takes 30 s to minutes): only with no arguments, where Java is
# present; ANONYMIST_SKIP_SPARK=1 skips it. PySpark is ~300 MB.
if [ $# -eq 0 ] && [ -z "${ANONYMIST_SKIP_SPARK:-}" ] && command -v java >/dev/null; then
  echo "Java found: installing PySpark (about 300 MB to download) for the Spark backend's" \
       "test; ANONYMIST_SKIP_SPARK=1 skips this step"
  "$PY" -m pip install -q "pyspark>=3.5" \
    && "$PY" -m pytest -q -p no:cacheprovider -m slow tests/engine/test_backend_spark.py \
    || status=$?
fi
exit $status
