"""A result kept in a project file and brought back without running the search again.

Saved (`result_state`): what the search learned (the solution space's states, the
checked transformations' losses and suppressed records, the optimal search's lower
bounds), the optimum, the local recoding's per-record levels, the transformation
applied in Explore, and fingerprints of the data and of the configuration the
result was computed with.

Restored (`restore_result`, in a worker): the problem is prepared again from the
reopened data and configuration (encoding, no search) and the solution space is
refilled from the file. Before it is shown, the fingerprints must match and the
optimum is evaluated again and must give the saved loss and suppressed records:
otherwise `ResultMismatch` says what changed, and the user anonymizes again.

Arrays are stored as ``.npy`` members read with ``allow_pickle=False``; no pickle.
Nothing here imports Qt.
"""
from __future__ import annotations

import hashlib
import io
import json
import math

import numpy as np

from engine.config import Job
from engine.data.table import EncodedTable
from engine.errors import AnonymistError
from engine.problem import Problem
from engine.project.job_file import job_to_dict
from engine.result import AnonymizationResult
from engine.search.outcome import SearchOutcome
from engine.solution_space import SolutionSpace, loss_json, loss_value

STATE_VERSION = 1
#: project members (see app/project_file.py: the app's project files keep them)
STATE_MEMBER = "result/state.json"
ARRAY_MEMBERS = {"states": "result/space_states.npy",
                 "lower_bounds": "result/space_lower_bounds.npy",
                 "recoding_levels": "result/recoding_levels.npy",
                 "recoding_suppressed": "result/recoding_suppressed.npy"}


class ResultMismatch(AnonymistError):
    """The saved result does not belong to the reopened data or configuration."""


# --- fingerprints ------------------------------------------------------------------------
def table_digest(table: EncodedTable) -> str:
    """A fingerprint of the table's values (not of its encoding: the same data read
    in another order of first appearance gives the same digest)."""
    h = hashlib.sha256()
    h.update(str(table.n_rows).encode())
    for name in table.names:
        col = table.column(name)
        values = np.asarray(col.dictionary, dtype=object).astype(str)
        order = np.argsort(values, kind="stable")
        rank = np.empty(len(values), dtype=np.int64)
        rank[order] = np.arange(len(values))
        h.update(b"\x1e" + name.encode() + b"\x1d")
        h.update("\x1f".join(values[order]).encode())
        h.update(rank[col.codes].astype(np.int64).tobytes())
    return h.hexdigest()


def job_digest(job: Job) -> str:
    """A fingerprint of what a job asks for: attributes (hierarchies by their rows),
    models, metric, transformation settings, subset and population; not where the
    data or the hierarchies were read from, nor where the records are counted
    (``[engine]``: every backend gives the same result)."""
    d = job_to_dict(job)
    d.pop("data", None)
    d.pop("engine", None)
    rows = {}
    for name, a in job.attributes.items():
        table = d.get("attributes", {}).get(name)
        if isinstance(table, dict):
            table.pop("hierarchy", None)
        if a.hierarchy is not None:
            rows[name] = hashlib.sha256("\n".join(
                "\x1f".join(map(str, r)) for r in a.hierarchy.rows).encode()).hexdigest()
    d["hierarchy_rows"] = rows
    return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()


# --- saving ----------------------------------------------------------------------------------
def _npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.asarray(array), allow_pickle=False)
    return buf.getvalue()


def result_state(result: AnonymizationResult, applied, job: Job | None,
                 table: EncodedTable) -> tuple[dict, dict[str, bytes]]:
    """The JSON state and the array members of ``result`` for a project file.
    ``job``: the configuration being saved (None when it cannot be built); the
    result restores only if it is the one the result was computed with."""
    space, outcome = result.space, result.outcome
    opt = outcome.optimum
    space_json, states, bounds = space.saved()
    state = {
        "version": STATE_VERSION,
        "data_digest": table_digest(table),
        "job_digest": job_digest(result.problem.job),
        "configuration_matches": job is not None and
        job_digest(job) == job_digest(result.problem.job),
        "algorithm": outcome.algorithm, "checked": outcome.checked,
        "search_elapsed_s": outcome.elapsed_s, "elapsed_s": result.elapsed_s,
        "cancelled": outcome.cancelled,
        "optimum": None if opt is None else {
            "levels": [int(x) for x in opt.levels], "anonymous": bool(opt.anonymous),
            "loss": loss_json(opt.loss), "suppressed_records": int(opt.suppressed_records),
            "n_classes": int(opt.n_classes)},
        "applied": None if applied is None else [int(x) for x in applied],
        "space": space_json,
        "local_recoding": None,
    }
    arrays = {}
    if states is not None:
        arrays[ARRAY_MEMBERS["states"]] = _npy(states)
    if bounds is not None:
        arrays[ARRAY_MEMBERS["lower_bounds"]] = _npy(bounds)
    rec = result.local_recoding
    if rec is not None:
        state["local_recoding"] = {
            "suppressed_before": int(rec.suppressed_before),
            "suppressed_after": int(rec.suppressed_after),
            "loss_before": loss_json(rec.loss_before), "loss_after": loss_json(rec.loss_after),
            "elapsed_s": float(rec.elapsed_s), "steps": rec.steps, "settings": rec.settings}
        arrays[ARRAY_MEMBERS["recoding_levels"]] = _npy(np.asarray(rec.levels, np.int64))
        arrays[ARRAY_MEMBERS["recoding_suppressed"]] = _npy(np.asarray(rec.suppressed, bool))
    return state, arrays


def load_array(data: bytes) -> np.ndarray:
    """An array member (``.npy``), never unpickled."""
    try:
        return np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError) as e:
        raise ResultMismatch(f"the saved solution space is damaged: {e}") from None


# --- restoring ----------------------------------------------------------------------------
def restore_result(table: EncodedTable, job: Job, state: dict,
                   arrays: dict[str, np.ndarray]) -> AnonymizationResult:
    """The saved result over the reopened ``table`` and ``job`` (in a worker).

    Raises
    ------
    ResultMismatch
        When the data or the configuration is not the one the result was computed
        with, or the optimum no longer evaluates to the saved figures.
    """
    if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
        raise ResultMismatch("the saved result has an unknown format")
    if not state.get("configuration_matches"):
        raise ResultMismatch("the configuration was changed after the last run and before "
                             "the project was saved")
    if table_digest(table) != state.get("data_digest"):
        raise ResultMismatch("the data is not the data the result was computed from")
    if job_digest(job) != state.get("job_digest"):
        raise ResultMismatch("the configuration is not the one the result was computed "
                             "with")
    problem = Problem(table, job)
    try:
        space = SolutionSpace.restored(problem.lattice, state["space"],
                                       arrays.get(ARRAY_MEMBERS["states"]),
                                       arrays.get(ARRAY_MEMBERS["lower_bounds"]))
    except (KeyError, TypeError, ValueError) as e:
        raise ResultMismatch(f"the saved solution space is damaged: {e}") from None
    optimum = None
    opt = state.get("optimum")
    if opt is not None:
        optimum = problem.evaluate(opt["levels"])  # the one figure checked again
        if not (_same_loss(optimum.loss, opt["loss"]) and
                optimum.suppressed_records == opt["suppressed_records"]
                and bool(optimum.anonymous) == opt["anonymous"]):
            raise ResultMismatch("the optimum no longer evaluates to the saved information "
                                 "loss and suppressed records")
    outcome = SearchOutcome(space, optimum, int(state["checked"]),
                            float(state["search_elapsed_s"]), bool(state["cancelled"]),
                            str(state["algorithm"]))
    recoding = None
    rec = state.get("local_recoding")
    if rec is not None:
        from engine.search.local_recoding import LocalRecoding
        levels = arrays.get(ARRAY_MEMBERS["recoding_levels"])
        suppressed = arrays.get(ARRAY_MEMBERS["recoding_suppressed"])
        n_base = problem.classifier.base.n_classes
        if levels is None or suppressed is None or len(suppressed) != n_base:
            raise ResultMismatch("the saved local recoding does not fit the data")
        recoding = LocalRecoding(levels, suppressed.astype(bool), rec["suppressed_before"],
                                 rec["suppressed_after"], loss_value(rec["loss_before"]),
                                 loss_value(rec["loss_after"]), rec["elapsed_s"],
                                 list(rec["steps"]), dict(rec["settings"]))
    return AnonymizationResult(problem, outcome, float(state["elapsed_s"]),
                               local_recoding=recoding)


def _same_loss(a, b) -> bool:
    a = np.atleast_1d(np.asarray(a, dtype=float))
    b = np.atleast_1d(np.asarray(b, dtype=float))
    return a.shape == b.shape and all(
        math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12) or (math.isnan(x) and math.isnan(y))
        for x, y in zip(a, b))
