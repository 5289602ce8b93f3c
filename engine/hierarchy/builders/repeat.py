"""Repetition of a sequence of base intervals across the whole domain.

Numbers repeat with a fixed period. Dates repeat by calendar months when the
sequence spans whole months (its first lower and last upper bound fall on the
same day, at most the 28th, and the same time), so yearly intervals stay on
1 January across leap years; otherwise by a fixed number of seconds.
"""
from __future__ import annotations

import bisect
import datetime as dt
from decimal import Decimal

from engine.data.datatypes import DateType
from engine.hierarchy.builders.base import BuilderError
from engine.hierarchy.builders.scales import CONTEXT, Scale, from_seconds, to_seconds


def _add_months(when: dt.datetime, months: int) -> dt.datetime:
    total = when.year * 12 + when.month - 1 + months
    year, month = divmod(total, 12)
    if not 1 <= year <= 9999:
        raise BuilderError(f"a repeated date interval lies outside years 1-9999 ({year})")
    day = when.day
    while True:  # clamp 31 January + 1 month to the last day of February
        try:
            return when.replace(year=year, month=month + 1, day=day)
        except ValueError:
            day -= 1


class Repetition:
    """Where the repeated copies of base intervals ``bounds`` lie.

    Copy ``k`` of base interval ``j`` has global index ``k * len(bounds) + j``;
    copy 0 is the sequence as given.
    """

    def __init__(self, scale: Scale, bounds: list[tuple[Decimal, Decimal]]) -> None:
        self.scale = scale
        self.bounds = bounds
        self.start, self.end = bounds[0][0], bounds[-1][1]
        self.months = 0
        if isinstance(scale.data_type, DateType):
            a, b = from_seconds(self.start), from_seconds(self.end)
            if a.day == b.day <= 28 and a.time() == b.time():
                self.months = (b.year - a.year) * 12 + b.month - a.month
        self._lowers: dict[int, list[Decimal]] = {}

    def shift(self, x: Decimal, k: int) -> Decimal:
        """``x`` moved by ``k`` periods."""
        if self.months:
            return to_seconds(_add_months(from_seconds(x), k * self.months))
        return x + CONTEXT.multiply(self.end - self.start, k)

    def copy_of(self, x: Decimal) -> int:
        """The copy ``k`` with ``shift(start, k) <= x < shift(start, k + 1)``."""
        if self.months:
            a, b = from_seconds(self.start), from_seconds(x)
            k = ((b.year - a.year) * 12 + b.month - a.month) // self.months
        else:
            k = self.scale.floor_div(x - self.start, self.end - self.start)
        while self.shift(self.start, k) > x:
            k -= 1
        while self.shift(self.start, k + 1) <= x:
            k += 1
        return k

    def index(self, x: Decimal) -> int:
        """Global index of the interval copy holding ``x``."""
        k = self.copy_of(x)
        lowers = self._lowers.get(k)
        if lowers is None:
            lowers = self._lowers[k] = [self.shift(lo, k) for lo, _ in self.bounds]
        return k * len(self.bounds) + bisect.bisect_right(lowers, x) - 1

    def interval(self, index: int) -> tuple[Decimal, Decimal]:
        """Nominal ``(lower, upper)`` of the interval copy ``index``."""
        k, j = divmod(index, len(self.bounds))
        lo, hi = self.bounds[j]
        return self.shift(lo, k), self.shift(hi, k)
