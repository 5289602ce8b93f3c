"""SIGINT, SIGTERM and SIGHUP end a command with their documented exit code (130, 130,
129) and leave no temporary file, also while a search runs numba kernels (issue 26:
an interrupt raised inside a kernel's call used to surface as an internal error)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engine.signals import HungUp, Terminated, exit_code, interrupt_of
from tests.shared_data import SHARED

ROOT = Path(__file__).resolve().parents[2]
HIGHDIM = SHARED / "data" / "highdim" / "creditcard_int.csv"


def test_an_interrupt_wrapped_by_a_kernel_call_is_recognised():
    def kernel_call():  # what CPython makes of an exception set inside a C call
        try:
            raise Terminated()
        except KeyboardInterrupt as e:
            raise SystemError("CPUDispatcher(<function f>) returned a result with an "
                              "exception set") from e
    with pytest.raises(SystemError) as caught:
        kernel_call()
    assert isinstance(interrupt_of(caught.value), Terminated)
    assert interrupt_of(SystemError("other")) is None
    assert interrupt_of(ValueError("x")) is None
    assert exit_code(HungUp()) == 129 and exit_code(Terminated()) == 130
    assert exit_code(KeyboardInterrupt()) == 130


def highdim_job(folder: Path) -> Path:
    """Credit card data, its 23 quasi-identifiers, 5-anonymity, a heuristic search."""
    header = HIGHDIM.read_text().split("\n", 1)[0].strip().split(";")
    lines = ["[data]", f'path = "{HIGHDIM}"', 'delimiter = ";"', ""]
    for col in header:
        h = HIGHDIM.parent / f"{HIGHDIM.stem}_hierarchy_{col}.csv"
        kind = "quasi-identifying" if col != "default-payment-next-month" else "insensitive"
        lines += [f'[attributes."{col}"]', f'type = "{kind}"']
        lines += [f'hierarchy = "{h}"', ""] if kind == "quasi-identifying" else [""]
    lines += ["[[privacy]]", 'model = "k-anonymity"', "k = 5", "", "[transformation]",
              "suppression_limit = 1.0", 'algorithm = "lightning"', "time_limit_s = 300",
              "seed = 1", "", "[metric]", 'name = "loss"', 'aggregate = "geometric-mean"']
    (folder / "job.toml").write_text("\n".join(lines) + "\n")
    return folder / "job.toml"


@pytest.mark.skipif(not HIGHDIM.exists(), reason="the shared highdim data is missing")
@pytest.mark.parametrize("signum, code", [  # about 3.5 s each: one in the default run
    (signal.SIGINT, 130), pytest.param(signal.SIGTERM, 130, marks=pytest.mark.slow),
    pytest.param(signal.SIGHUP, 129, marks=pytest.mark.slow),
    pytest.param(signal.SIGINT, 130, marks=pytest.mark.slow)])
def test_a_signal_during_a_heuristic_search(tmp_path, signum, code):
    """The signal is sent once the search reports progress (its bar on stderr), while
    it checks transformations on 23 quasi-identifiers in numba kernels."""
    job = highdim_job(tmp_path)
    (tmp_path / "out.csv").write_text("an earlier release\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "engine.cli", "anonymize", str(job),
                             "--output", str(tmp_path / "out.csv"), "--result",
                             str(tmp_path / "r.json")], stderr=subprocess.PIPE, env=env)
    seen = b""
    try:
        while b"Searching" not in seen:
            piece = proc.stderr.read1(4096)
            assert piece, f"the command ended before its search: {seen.decode()[-500:]}"
            seen += piece
        proc.send_signal(signum)
        rest = proc.stderr.read()
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = (seen + rest).decode()
    assert proc.returncode == code, err[-500:]
    assert "cancelled" in err and "internal error" not in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.toml", "out.csv"]
    assert (tmp_path / "out.csv").read_text() == "an earlier release\n"
