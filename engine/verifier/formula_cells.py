"""CSV cells as the release wrote them, read back as released values: a CSV export
quotes a cell a spreadsheet would run as a formula (it begins with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return, after any leading single quotes, and is not
a number) by one leading single quote (OWASP's rule; the export's ``formula_cells =
"quote"``, the default). The verifier's own reading of that rule, checked against
the export's (``engine.formulas``) on random text in
tests/engine/test_verifier_independent.py.
"""
from __future__ import annotations

import re

import numpy as np

TRIGGERS = frozenset("=+-@\t\r")
#: a number (sign, digits with a decimal point or comma, an exponent): not a formula
_NUMBER = re.compile(r"[+-]?([0-9]+([.,][0-9]*)?|[.,][0-9]+)([eE][+-]?[0-9]+)?\Z")


def is_formula(text: str) -> bool:
    body = text.lstrip("'")
    return bool(body) and body[0] in TRIGGERS and _NUMBER.match(body) is None


def unquoted(text: str) -> str:
    """The released value of a cell: one leading quote dropped from a quoted formula."""
    return text[1:] if text.startswith("'") and is_formula(text) else text


def unquote_frame(chunk, columns) -> None:
    """Unquote ``columns`` of a DataFrame chunk of strings in place."""
    for name in columns:
        col = chunk[name]
        marked = col.str.startswith("'").to_numpy()
        if marked.any():
            chunk.loc[marked, name] = [unquoted(v) for v in col[marked]]


def unquote_array(values) -> np.ndarray:
    values = np.asarray(values, dtype=object)
    return np.array([unquoted(str(v)) if str(v).startswith("'") else v for v in values],
                    dtype=object)
