"""The result of an anonymization: the solution space, the optimum, the output."""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.io_utils import atomic_write_text
from engine.metrics import Loss
from engine.output import ReleasedTable, transform, transform_recoded
from engine.problem import Problem
from engine.search.outcome import EXACT_ALGORITHMS, SearchOutcome

if TYPE_CHECKING:
    import pandas as pd

FORMAT_VERSION = 1


@dataclass(frozen=True)
class Transformation:
    """One transformation with what is known of it."""

    levels: dict[str, int]
    anonymous: bool
    information_loss: Loss
    information_loss_percent: float | None
    suppressed_records: int

    def loss_json(self):
        loss = self.information_loss
        return list(loss) if isinstance(loss, tuple) else loss


def relative_percent(loss: Loss, low: Loss, high: Loss) -> float:
    """ARX's relative loss: ``(loss - low) / (high - low) * 100`` (rank: mean over entries)."""
    a = np.atleast_1d(np.asarray(loss, dtype=float))
    lo = np.atleast_1d(np.asarray(low, dtype=float))
    hi = np.atleast_1d(np.asarray(high, dtype=float))
    span = hi - lo
    rel = np.where(span > 0, (a - lo) / np.where(span > 0, span, 1.0), 0.0)
    return float(np.clip(rel, 0.0, 1.0).mean() * 100.0)


class AnonymizationResult:
    """What ``engine.anonymize`` returns.

    ``space`` holds every transformation's state and loss (exact when checked,
    a lower bound otherwise); ``optimum`` is None when no transformation meets
    the models; ``output`` is the released table of the optimum.
    """

    def __init__(self, problem: Problem, outcome: SearchOutcome, elapsed_s: float,
                 local_recoding=None):
        self.problem = problem
        #: engine.search.local_recoding.LocalRecoding applied after the optimum, or None
        self.local_recoding = local_recoding
        self.outcome = outcome
        self.space = outcome.space
        self.lattice = problem.lattice
        self.elapsed_s = elapsed_s
        self._low, self._high = self._bounds()
        opt = outcome.optimum
        self.optimum = self._transformation(opt) if opt is not None else None
        self._released: ReleasedTable | None = None  # the last one asked for
        self._released_lock = threading.Lock()

    @property
    def transformations_checked(self) -> int:
        return self.outcome.checked

    @property
    def lattice_size(self) -> int:
        return self.lattice.size

    @property
    def cancelled(self) -> bool:
        return self.outcome.cancelled

    @property
    def proven_optimal(self) -> bool:
        """Whether the optimum is proven to have the least loss: found by a complete
        search (the optimal or the exhaustive one) that was not cancelled. A heuristic's
        or a cancelled search's result is the best found, not an optimum."""
        return (self.optimum is not None and not self.cancelled
                and self.outcome.algorithm in EXACT_ALGORITHMS)

    def _bounds(self) -> tuple[Loss, Loss]:
        """ARX's lowest and highest scores: zero and the metric's upper bound (the top
        transformation's loss where the metric has no closed-form bound)."""
        high = self.problem.metric.upper_bound()
        if high is None:
            high = self.problem.evaluate(self.lattice.top).loss
        low = tuple(0.0 for _ in high) if isinstance(high, tuple) else 0.0
        return low, high

    @property
    def loss_bounds(self) -> tuple[Loss, Loss]:
        """The lowest and highest scores that relative (percent) losses refer to."""
        return self._low, self._high

    def relative_percent(self, loss: Loss) -> float:
        """A loss as ARX's GUI shows it: percent between the lowest and highest scores."""
        return relative_percent(loss, self._low, self._high)

    def _transformation(self, ev) -> Transformation:
        return Transformation(dict(zip(self.problem.qis, ev.levels)), ev.anonymous, ev.loss,
                              relative_percent(ev.loss, self._low, self._high),
                              ev.suppressed_records)

    def evaluate(self, levels) -> Transformation:
        """State and loss of any transformation, checking it on demand (``levels``: a dict
        by attribute or a sequence in ``problem.qis`` order, inside the lattice, else
        ``engine.errors.LevelsError``)."""
        return self._transformation(self.problem.evaluate(self.lattice.checked(levels)))

    def levels_of(self, levels=None) -> tuple[int, ...]:
        """``levels`` (a dict by attribute or a sequence in ``problem.qis`` order; None:
        the optimum) as a tuple in quasi-identifier order."""
        if levels is None:
            if self.optimum is None:
                raise ValueError("no transformation meets the privacy models: no output")
            levels = self.optimum.levels
        return self.lattice.checked(levels)

    def transformed(self, levels=None) -> ReleasedTable:
        """The released table of ``levels``; None: the result's own output (the optimum,
        or its local recoding when the job asked for one). From `engine.output`'s
        `transform` / `transform_recoded`; the last one asked for is kept. For data
        counted by a DuckDB or Spark backend it is the release of the frequency table
        (one row per distinct combination, weighted): its classes, columns and
        analyses are the records', its rows are not (``write_output`` writes them)."""
        local = levels is None and self.local_recoding is not None
        key = self.levels_of(levels)
        # built under the lock: two views asking at once (after a cancel, both Analyze
        # perspectives in their workers) share one table instead of building it twice
        with self._released_lock:
            kept = self._released
            if kept is not None and kept.levels == key and kept.local_recoding == local:
                return kept
            released = (transform_recoded(self.problem, self.local_recoding, key) if local
                        else transform(self.problem, key))
            self._released = released
            return released

    @property
    def output(self) -> pd.DataFrame | None:
        """The released table of the result as a DataFrame (None without an optimum)."""
        return self.transformed().frame if self.optimum is not None else None

    def write_output(self, path: str | Path, levels=None, delimiter: str = ";",
                     progress=None) -> dict | None:
        """Write the released table of ``levels`` (None: the result's own) as CSV with
        ``delimiter`` (Parquet for a ``.parquet`` path), through the release writer's
        table step (``engine.export.release_table``): a job counted by a DuckDB or Spark
        backend is released by that backend. ``progress(fraction)``, if given. Returns
        what was done with formula cells (CSV, ``engine.formulas``)."""
        from engine.export.release_table import write_release_table
        from engine.export.targets import CsvOptions, FileTarget
        path = Path(path)
        fmt = "parquet" if path.suffix.lower() == ".parquet" else "csv"
        return write_release_table(self, FileTarget(path, fmt, CsvOptions(delimiter=delimiter)),
                                   levels, progress)

    def to_dict(self, output: str | None = None) -> dict:
        opt = self.optimum
        return {
            "format_version": FORMAT_VERSION,
            "optimum": None if opt is None else {
                "levels": opt.levels,
                "information_loss": opt.loss_json(),
                "information_loss_percent": opt.information_loss_percent,
                "suppressed_records": opt.suppressed_records,
            },
            "transformations_checked": self.transformations_checked,
            "lattice_size": self.lattice_size,
            "elapsed_s": self.elapsed_s,
            "suppressed_records": (self.local_recoding.suppressed_after
                                   if self.local_recoding is not None
                                   else opt.suppressed_records if opt else None),
            "output": output,
            "algorithm": self.outcome.algorithm,
            "cancelled": self.cancelled,
            "proven_optimal": self.proven_optimal,
            "metric": self.problem.metric.to_dict(),
            "states": self.space.counts(),
            **({} if opt is None or self.local_recoding is not None
               or not self.problem.counts_persons
               else {"person": self.problem.person_figures(self.levels_of())}),
            **self.transformation_report(),
            **({"identifiers": self.transformed().identifier_report()} if opt else {}),
        }

    def transformation_report(self) -> dict:
        """Which transformation methods produced the output, with their utility figures
        (microaggregation's squared error, local recoding's steps)."""
        out: dict = {"method": self.method}
        if self.local_recoding is not None:
            out["local_recoding"] = self.local_recoding.to_dict()
        if self.problem.micro and self.optimum is not None:
            from engine.transform.release import microaggregation_utility
            out["microaggregation"] = microaggregation_utility(self.problem,
                                                               self.transformed())
        if self.optimum is not None:  # sdcMicro's methods (engine/transform/sdc_report.py)
            from engine.transform.sdc_report import sdc_methods_report
            out.update(sdc_methods_report(self.problem, self.transformed()))
        return out

    @property
    def method(self) -> str:
        """A short name of the transformation method, for result cards and files."""
        parts = ["global generalization"]
        if self.local_recoding is not None:
            parts = ["global generalization + local recoding"]
        if getattr(self.problem.job.transformation, "suppression", "records") == "cells":
            parts.append("cell suppression")
        if self.problem.micro:
            parts.append("microaggregation (" + ", ".join(
                f"{m.attribute}: {m.function}"
                f"{'' if m.clustering == 'none' else ', clustering: ' + m.clustering}"
                for m in self.problem.micro) + ")")
        return " + ".join(parts)

    def write_json(self, path: str | Path, output: str | None = None,
                   extra: dict | None = None) -> None:
        """The result file (``to_dict``), with ``extra`` keys (the command line's
        ``formula_cells``: per CSV target what was done with cells a spreadsheet would
        run as formulas, ``engine.formulas``)."""
        atomic_write_text(Path(path), json.dumps({**self.to_dict(output), **(extra or {})},
                                                 indent=2) + "\n")
