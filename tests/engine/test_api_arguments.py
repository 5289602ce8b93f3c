"""The Python API refuses arguments it cannot use with errors naming them: a callback
that is not callable, levels outside an attribute's range (never wrapped round), an
unknown attribute (named, with the closest known one) (issue 26)."""
from __future__ import annotations

import pytest

import engine
from engine.cli import EXIT_BAD_INPUT, main
from engine.errors import LevelsError
from tests.cli.conftest import write_tiny


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    job = write_tiny(tmp_path_factory.mktemp("tiny"))
    return engine.anonymize(None, job)


@pytest.mark.parametrize("argument", ["progress", "cancel", "backend_hook"])
def test_a_callback_that_is_not_callable(tmp_path, argument):
    job = write_tiny(tmp_path)
    with pytest.raises(TypeError, match=f"^{argument} must be a function .*int 5"):
        engine.anonymize(None, job, **{argument: 5})


@pytest.mark.parametrize("levels, message", [
    ([-1, 0, 0], r"the level of 'age' is -1, outside the lattice: its range is 0\.\.3"),
    ({"age": 0, "sex": 2, "zip": 0}, r"'sex' is 2, .*range is 0\.\.1"),
    ({"agee": 1, "sex": 0, "zip": 0}, r"'agee' is not a quasi-identifier \(did you mean "
                                      r"'age'\?\)"),
    ({"age": 1}, "give a level for sex, zip"),
    ([1, 0], "2 levels for 3 quasi-identifiers"),
    ([1, 0, 0.5], "the level of 'zip' must be a whole number"),
])
def test_levels_refused(result, levels, message):
    assert result.problem.qis == ["age", "sex", "zip"]
    with pytest.raises(LevelsError, match=message):
        result.evaluate(levels)
    with pytest.raises(LevelsError, match=message):
        result.transformed(levels)


def test_levels_inside_the_lattice_are_evaluated(result):
    top = result.evaluate(dict(zip(result.problem.qis, result.lattice.top)))
    assert top.levels == {"age": 3, "sex": 1, "zip": 2} and top.anonymous


def test_evaluate_command_refuses_a_negative_level(tmp_path, capsys):
    job = write_tiny(tmp_path)
    code = main(["evaluate", str(job), "--levels", "age=-1,sex=0,zip=0"])
    err = capsys.readouterr().err
    assert code == EXIT_BAD_INPUT and "'age' is -1" in err and "0..3" in err
