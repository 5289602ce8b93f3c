#!/usr/bin/env bash
# Build the desktop bundle with PyInstaller and start it once offscreen as a smoke check:
# it opens the sample project, anonymizes it and quits.
#
#   bash packaging/build.sh            # -> dist/anonymist/anonymist
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q -e . "pyinstaller>=6.0"
python3 -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller packaging/anonymist.spec
app=dist/anonymist/anonymist
[ -x "$app.exe" ] && app="$app.exe"
echo "built $(du -sh dist/anonymist | cut -f1) in dist/anonymist"
log=$(mktemp)
if QT_QPA_PLATFORM=offscreen timeout 180 "$app" resources/sample/adult.anonymist --anonymize \
        --quit-after 60 --smoke-check >"$log" 2>&1; then
    grep -q "smoke check: optimum" "$log" && { cat "$log"; echo "smoke check passed"; exit 0; }
fi
cat "$log"
echo "smoke check FAILED" >&2
exit 1
