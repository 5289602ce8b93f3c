"""Risk figures as the Analyze-risk views write them: percentages and profile bins."""
from __future__ import annotations

import math

def percent(value: float | None, digits: int = 2) -> str:
    """A share as a percentage that never rounds a non-zero value to zero."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    pct = 100.0 * value
    if pct == 0:
        return "0 %"
    if abs(pct) < 1e-4:
        return f"{pct:.1e} %"
    if abs(pct) < 10 ** -digits:
        return f"{pct:.2g} %"
    return f"{pct:.{digits}f} %"


def interval_label(lower: float, upper: float) -> str:
    """``]lower, upper]`` of the risk profile, in percent."""
    return f"]{_short_pct(lower)}, {_short_pct(upper)}]"


def _short_pct(value: float) -> str:
    pct = 100.0 * value
    if pct == 0:
        return "0"
    if pct < 0.01:
        return f"{pct:.0e}".replace("e-0", "e-")
    return f"{pct:.3g}"


def upper_label(upper: float) -> str:
    """A bin's short axis label: its upper bound in percent."""
    return _short_pct(upper)
