"""The app without a display, or without Qt's X11 libraries, says so and exits 2
instead of Qt's abort (exit 134) with a message about xcb-cursor0."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app import platform_check

ROOT = Path(__file__).resolve().parents[2]


def test_platform_follows_the_environment():
    assert platform_check.platform_name({"QT_QPA_PLATFORM": "offscreen"}) == "offscreen"
    assert platform_check.platform_name({"QT_QPA_PLATFORM": "xcb;wayland"}) == "xcb"
    if sys.platform.startswith("linux"):
        assert platform_check.platform_name({"DISPLAY": ":0"}) == "xcb"
        assert platform_check.platform_name({"WAYLAND_DISPLAY": "wayland-0"}) == "wayland"
        assert platform_check.platform_name({}) == ""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="displays are Linux's question")
def test_no_display_is_said_in_words_and_exits_2():
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-m", "app"], env=env, capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == platform_check.EXIT_NO_DISPLAY, done.stderr
    assert "no display" in done.stderr
    assert "anonymist --help" in done.stderr
    assert "Traceback" not in done.stderr


def test_missing_xcb_libraries_are_named_with_their_packages(monkeypatch):
    monkeypatch.setattr(platform_check, "missing_xcb_libraries",
                        lambda: ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"])
    said = platform_check.problem({"QT_QPA_PLATFORM": "xcb"})
    assert "libxcb-icccm.so.4" in said and "libxcb-keysyms.so.1" in said
    assert "apt-get install libxcb-icccm4 libxcb-keysyms1" in said
    monkeypatch.setattr(platform_check, "missing_xcb_libraries", lambda: [])
    assert platform_check.problem({"QT_QPA_PLATFORM": "xcb"}) is None
    assert platform_check.problem({"QT_QPA_PLATFORM": "offscreen"}) is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ldd is Linux's")
def test_ldd_finds_what_the_plugin_lacks(tmp_path):
    """``missing_xcb_libraries`` reads ldd's 'not found' lines: each name it returns
    is indeed not loadable here (whatever this machine has installed)."""
    import ctypes
    for name in platform_check.missing_xcb_libraries():
        with pytest.raises(OSError):
            ctypes.CDLL(name)
