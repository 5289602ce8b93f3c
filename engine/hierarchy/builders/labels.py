"""Label functions: how a group of values is named at a level.

=================  ==========================================  ==================
function           label                                       example
=================  ==========================================  ==================
``interval``       nominal bounds, lower inclusive             ``[20, 30[``
``bounds``         first and last member value                 ``[21, 29]``
``set``            every member value                          ``{21, 25, 29}``
``prefix``         common prefix of the members, then ``*``    ``2*``
``constant``       a fixed text                                ``adult``
``mean``           arithmetic mean of the members              ``25``
``geometric_mean`` geometric mean of the (positive) members    ``24.6``
=================  ==========================================  ==================

Members are the distinct values present in the group, in the builder's order.
Groups that get the same label are merged; a builder raises if that breaks
the hierarchy (for example a ``constant`` level below a non-constant one).
"""
from __future__ import annotations

import decimal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from engine.hierarchy.builders.base import BuilderError

LABEL_FUNCTIONS = ("interval", "bounds", "set", "prefix", "constant", "mean", "geometric_mean")
NUMERIC_FUNCTIONS = frozenset({"mean", "geometric_mean"})
_CONTEXT = decimal.Context(prec=40)


@dataclass(frozen=True)
class Label:
    """A label function, with the text of a ``constant`` label."""

    function: str = "interval"
    text: str = ""

    def __post_init__(self) -> None:
        if self.function not in LABEL_FUNCTIONS:
            raise BuilderError(f"unknown label function '{self.function}' "
                               f"(known: {', '.join(LABEL_FUNCTIONS)})")
        if self.function == "constant" and not self.text:
            raise BuilderError("a constant label needs a non-empty text")
        if self.function != "constant" and self.text:
            raise BuilderError(f"only a constant label has a text, not '{self.function}'")

    @classmethod
    def of(cls, obj: Any) -> "Label":
        """A `Label` from a `Label`, a function name, or ``{"function": .., "text": ..}``."""
        if isinstance(obj, Label):
            return obj
        if isinstance(obj, str):
            return cls(obj)
        if isinstance(obj, Mapping) and set(obj) <= {"function", "text"} and "function" in obj:
            return cls(str(obj["function"]), str(obj.get("text", "")))
        raise BuilderError(f"a label must be a function name or an object with 'function' "
                           f"(and 'text' for constant), not {obj!r}")

    def to_json(self) -> str | dict[str, str]:
        return {"function": self.function, "text": self.text} if self.text else self.function


@dataclass(frozen=True)
class GroupInfo:
    """What a label function may use: members, their numbers, nominal bounds."""

    members: Sequence[str]
    numbers: Sequence[Decimal] | None = None
    lower: str | None = None
    upper: str | None = None
    format_number: Callable[[Decimal], str] | None = None


def common_prefix(values: Sequence[str]) -> str:
    if not values:
        return ""
    lo, hi = min(values), max(values)
    n = 0
    while n < min(len(lo), len(hi)) and lo[n] == hi[n]:
        n += 1
    return lo[:n]


def format_decimal(x: Decimal, places: int | None = None) -> str:
    """A plain decimal string without exponent or trailing zeros (``places`` rounds)."""
    if places is not None and x.adjusted() < 20:
        x = x.quantize(Decimal(1).scaleb(-places), context=_CONTEXT)
    text = format(x.normalize(_CONTEXT), "f")
    return "0" if text in ("-0", "") else text


def apply_label(label: Label, group: GroupInfo) -> str:
    """The label ``label`` gives ``group``."""
    f = label.function
    members = group.members
    if f == "constant":
        return label.text
    if f == "interval":
        if group.lower is None or group.upper is None:
            raise BuilderError("the interval label needs nominal bounds (intervals builder)")
        return f"[{group.lower}, {group.upper}["
    if f == "bounds":
        return f"[{members[0]}, {members[-1]}]"
    if f == "set":
        return "{" + ", ".join(members) + "}"
    if f == "prefix":
        prefix = common_prefix(members)
        return members[0] if len(set(members)) == 1 else prefix + "*"
    numbers = group.numbers
    if numbers is None or group.format_number is None:
        raise BuilderError(f"the {f} label needs numeric values")
    if f == "mean":
        mean = _CONTEXT.divide(sum(numbers, Decimal(0)), Decimal(len(numbers)))
        return group.format_number(mean)
    if any(x <= 0 for x in numbers):
        bad = next(x for x in numbers if x <= 0)
        raise BuilderError(f"the geometric mean needs positive values; the group of "
                           f"'{members[0]}' ... '{members[-1]}' holds {format_decimal(bad)}")
    logs = sum((x.ln(_CONTEXT) for x in numbers), Decimal(0))
    return group.format_number(_CONTEXT.divide(logs, Decimal(len(numbers))).exp(_CONTEXT))
