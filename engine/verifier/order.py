"""The order of a sensitive attribute's values for ordered t-closeness, the verifier's
own (written apart from the engine's ``engine.privacy.t_closeness.value_order`` and
checked against it on random columns, tests/engine/test_verifier_independent.py).

The rule (docs/reference/verify.md, "Ordered distance"): values that read as finite
numbers come first, in numeric order (equal numbers written differently, such as
``7`` and ``7.0``, by their text); every other value (blank, ``NULL``, text) comes
after all numbers, in text order. A column declared ``data_type = "string"`` (or
``"text"``) is ordered as text throughout.
"""
from __future__ import annotations

import math

#: data types whose values are ordered as text, numbers or not
TEXT_TYPES = ("string", "text")


def _number(text: str) -> float | None:
    try:
        x = float(text)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def sort_key(text: str, data_type: str | None = None) -> tuple:
    """The position of one value: (0, number, text) for a number, (1, 0, text) else."""
    text = str(text)
    x = None if str(data_type or "").lower() in TEXT_TYPES else _number(text)
    return (0, x, text) if x is not None else (1, 0.0, text)


def ordered_values(values, data_type: str | None = None) -> list[str]:
    """The distinct ``values`` (strings) in the order of the ordered distance."""
    return sorted(dict.fromkeys(str(v) for v in values),
                  key=lambda v: sort_key(v, data_type))
