"""The ``anonymist`` command: engine subcommands run without loading Qt."""
from __future__ import annotations

import subprocess
import sys


def test_subcommands_do_not_load_qt(tmp_path):
    code = ("import sys\nfrom app.launcher import main\n"
            "try:\n    main(['evaluate', '--help'])\nexcept SystemExit:\n    pass\n"
            "print('PySide6' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().endswith("False")
    assert "--levels" in out.stdout


def test_engine_cli_without_subcommand_prints_help(capsys):
    from engine.cli import main
    assert main([]) == 2
    assert "anonymize" in capsys.readouterr().out
