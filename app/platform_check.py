"""Can Qt open a window here? Checked before the QApplication exists.

Qt aborts the process (SIGABRT, exit 134) when its platform plugin cannot load,
with a message that names ``xcb-cursor0`` whatever is missing, and the same when
there is no display at all. The desktop app asks first and, where it cannot
start, says why in words and exits with status 2 (``EXIT_NO_DISPLAY``):

- no display: ``DISPLAY`` / ``WAYLAND_DISPLAY`` unset on Linux and no platform
  chosen in ``QT_QPA_PLATFORM``;
- the X11 plugin's libraries missing: the plugin and its Qt library are read
  with ``ldd``, and ``libxcb-cursor`` (which Qt loads at run time) is looked up;
  the message names the missing files and the Debian/Ubuntu packages holding them.

``python -m app.platform_check`` prints the same verdict (exit 0 when the app can
start), for install scripts and support questions.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

EXIT_NO_DISPLAY = 2

#: shared-library file name -> the Debian/Ubuntu package that holds it
PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-glx.so.0": "libxcb-glx0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb.so.1": "libxcb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
}


def platform_name(environ=None) -> str:
    """The platform plugin Qt will use: ``QT_QPA_PLATFORM``'s first choice, else the
    system's default (xcb on Linux with an X display, wayland with only Wayland)."""
    env = os.environ if environ is None else environ
    chosen = env.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if chosen:
        return chosen
    if not sys.platform.startswith("linux"):
        return "native"
    if env.get("DISPLAY"):
        return "xcb"
    if env.get("WAYLAND_DISPLAY"):
        return "wayland"
    return ""


def _qt_dir() -> Path | None:
    try:
        import importlib.util
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "Qt"


def _not_found(library: Path) -> list[str]:
    """The shared libraries ``ldd`` cannot find for ``library`` (empty where ldd is
    missing or fails: then Qt's own message is all there is)."""
    try:
        out = subprocess.run(["ldd", str(library)], capture_output=True, text=True,
                             timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return re.findall(r"^\s*(\S+)\s+=>\s+not found", out, flags=re.MULTILINE)


def _loadable(name: str) -> bool:
    import ctypes
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True


def missing_xcb_libraries() -> list[str]:
    """Shared libraries Qt's X11 plugin needs that this system lacks, in order."""
    qt = _qt_dir()
    if qt is None:
        return []
    missing: list[str] = []
    for library in (qt / "plugins" / "platforms" / "libqxcb.so",
                    *sorted((qt / "lib").glob("libQt6XcbQpa.so*"))[:1]):
        if library.exists():
            missing.extend(n for n in _not_found(library) if n not in missing)
    if not _loadable("libxcb-cursor.so.0"):  # Qt >= 6.5 loads it at run time
        missing.append("libxcb-cursor.so.0")
    return missing


def problem(environ=None) -> str | None:
    """Why the window cannot open here, in words, or None when it can."""
    platform = platform_name(environ)
    if not platform:
        return ("no display: the Anonymist window needs a graphical session, and neither "
                "DISPLAY nor WAYLAND_DISPLAY is set. Start it from a desktop session (or "
                "under xvfb-run), or use the command line: `anonymist --help` lists "
                "anonymize, verify, evaluate and the other commands, which need no display.")
    if platform != "xcb":
        return None
    missing = missing_xcb_libraries()
    if not missing:
        return None
    packages = sorted({PACKAGES.get(m, m) for m in missing})
    return ("Qt's X11 platform plugin cannot load: missing system "
            f"librar{'y' if len(missing) == 1 else 'ies'} {', '.join(missing)}. On "
            f"Debian/Ubuntu: sudo apt-get install {' '.join(packages)} (packaging/install.sh "
            "installs them).")


def main() -> int:
    found = problem()
    if found:
        print(f"anonymist: {found}", file=sys.stderr)
        return EXIT_NO_DISPLAY
    print(f"anonymist: the window can open here (platform {platform_name() or 'default'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
