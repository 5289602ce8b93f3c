"""A result and the transformation it releases now: the optimum (with the job's local
recoding), or another transformation of the result applied by hand (the app's
Explore perspective). What is exported and what the analyses show is
``ReleaseChoice.released()``, the one released table of ``engine.output``.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CurrentTransformation:
    """The transformation released now, as the app shows it (the optimum until another
    is applied)."""

    levels: dict[str, int]
    applied: bool  # applied by hand (False: the result's optimum)
    local_recoding: bool  # the optimum with the job's local recoding
    anonymous: bool
    suppressed_records: int
    information_loss_percent: float | None

    @property
    def kind(self) -> str:
        if self.applied:
            return "applied"
        return "optimum with local recoding" if self.local_recoding else "optimum"

    @property
    def levels_text(self) -> str:
        return " · ".join(f"{n} {lv}" for n, lv in self.levels.items())

    def describe(self) -> str:
        """``applied: age 2 · sex 0 · 12 records suppressed`` (what it is comes first)."""
        state = ", not anonymous" if not self.anonymous else ""
        return (f"{self.kind}{state}: {self.levels_text} · "
                f"{self.suppressed_records:,} records suppressed")


class ReleaseChoice:
    """``result`` (an ``AnonymizationResult``) and the transformation it releases:
    ``applied`` levels, or None for the optimum."""

    def __init__(self, result, applied: tuple | None = None):
        self.result = result
        self.applied = None if applied is None else tuple(int(x) for x in applied)
        self._current: CurrentTransformation | None = None
        self._plan = self._plan_key = None

    def apply(self, levels) -> bool:
        """Release ``levels`` (a transformation of the result; the optimum's own levels
        make the optimum current again). False when nothing changed."""
        r = self.result
        levels = r.levels_of(levels)
        if r.local_recoding is None and r.optimum is not None and levels == r.levels_of(None):
            levels = None
        if levels == self.applied:
            return False
        self.applied, self._current = levels, None
        return True

    def current(self) -> CurrentTransformation | None:
        """What is released now (None: no transformation meets the models and none was
        applied)."""
        r = self.result
        if r.optimum is None and self.applied is None:
            return None
        if self._current is None:
            if self.applied is None:
                opt, local = r.optimum, r.local_recoding
                suppressed = local.suppressed_after if local is not None \
                    else opt.suppressed_records
                self._current = CurrentTransformation(
                    dict(opt.levels), False, local is not None, bool(opt.anonymous),
                    int(suppressed), opt.information_loss_percent)
            else:
                ev = r.evaluate(self.applied)
                self._current = CurrentTransformation(
                    dict(ev.levels), True, False, bool(ev.anonymous),
                    int(ev.suppressed_records), ev.information_loss_percent)
        return self._current

    def released(self):
        """The released table of the current transformation (``engine.output``)."""
        return self.result.transformed(self.applied)

    def released_page(self, data, start: int, count: int):
        """Rows ``start ..`` of the current release as text (a DataFrame), from ``data``
        (an ``engine.backends.handle.DataHandle``): out of core a query applying
        ``engine.output.release_plan`` to the file (what export writes; it scans: call
        it from a worker), else a slice of `released`."""
        if not data.out_of_core:
            frame = self.released().frame
            return frame.iloc[int(start):int(start) + int(count)].reset_index(drop=True)
        from engine.output import release_plan
        levels = self.result.levels_of(self.applied)
        if self._plan_key != levels:
            self._plan, self._plan_key = release_plan(self.result.problem, levels), levels
        return data.released_page(self._plan, start, count)
