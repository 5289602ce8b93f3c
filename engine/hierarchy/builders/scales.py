"""Exact numbers for interval arithmetic: integers, decimals and dates as `Decimal`.

Binary floats misplace values on interval bounds (``0.3 // 0.1 == 2``), so the
intervals builder computes with decimals; a date is its seconds since
1970-01-01 (naive, no time zone).
"""
from __future__ import annotations

import datetime as dt
import decimal
from dataclasses import dataclass
from decimal import Decimal

from engine.data.datatypes import DataType, DateType, DecimalType, Kind
from engine.hierarchy.builders.base import BuilderError
from engine.hierarchy.builders.labels import format_decimal

CONTEXT = decimal.Context(prec=60)
_EPOCH = dt.datetime(1970, 1, 1)


def to_seconds(when: dt.datetime) -> Decimal:
    """Exact seconds of a naive datetime since 1970-01-01."""
    delta = when - _EPOCH
    return Decimal(delta.days * 86400 + delta.seconds) + Decimal(delta.microseconds).scaleb(-6)


def from_seconds(x: Decimal) -> dt.datetime:
    """Inverse of `to_seconds` (to the microsecond); `BuilderError` outside years 1-9999."""
    micro = int((x * 1_000_000).to_integral_value(decimal.ROUND_HALF_EVEN))
    try:
        return _EPOCH + dt.timedelta(microseconds=micro)
    except OverflowError:
        raise BuilderError(f"a date lies outside years 1-9999 ({x} s from 1970)") from None


@dataclass(frozen=True)
class Scale:
    """Parsing to and formatting from `Decimal` for one data type."""

    data_type: DataType

    def parse(self, text: str) -> Decimal:
        """The number (or seconds, for dates) of ``text``; `BuilderError` if invalid."""
        t = self.data_type
        s = str(text).strip()
        try:
            if isinstance(t, DateType):
                return to_seconds(dt.datetime.strptime(s, t.format))
            if isinstance(t, DecimalType):
                s = s.replace(t.separator, ".")
            if t.kind is Kind.INTEGER and not t.matches(s):
                raise ValueError(s)
            number = Decimal(s)
            if not number.is_finite():
                raise ValueError(s)
            return number
        except (ValueError, decimal.InvalidOperation):
            raise BuilderError(f"'{text}' is not a value of type {t.name}") from None

    def format(self, x: Decimal, places: int | None = None) -> str:
        """``x`` as the data type writes it (dates in its format, to the microsecond)."""
        t = self.data_type
        if isinstance(t, DateType):
            return from_seconds(x).strftime(t.format)
        text = format_decimal(x, places)
        return text.replace(".", t.separator) if isinstance(t, DecimalType) else text

    def format_mean(self, x: Decimal) -> str:
        """A mean: six decimal places at most (a date to the second)."""
        if isinstance(self.data_type, DateType):
            return self.format(x.to_integral_value(decimal.ROUND_HALF_EVEN))
        return self.format(x, places=6)

    def floor_div(self, x: Decimal, period: Decimal) -> int:
        """``floor(x / period)``, exact even where the decimal quotient rounds."""
        k = int(CONTEXT.divide(x, period).to_integral_value(decimal.ROUND_FLOOR))
        while CONTEXT.multiply(period, k) > x:
            k -= 1
        while CONTEXT.multiply(period, k + 1) <= x:
            k += 1
        return k
