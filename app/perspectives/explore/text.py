"""How Explore writes transformations: level vectors, states, losses, tooltips."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from app.perspectives.explore.nodes import STATE_LABELS, ExploreNodes


def level_label(levels: Sequence[int]) -> str:
    """``[0,3,0,1]``-style label; digits run together when every level is one digit."""
    values = [int(v) for v in levels]
    if all(0 <= v < 10 for v in values):
        return "".join(str(v) for v in values)
    return ",".join(str(v) for v in values)


def format_loss(loss) -> str:
    if loss is None:
        return "–"
    if isinstance(loss, (tuple, list, np.ndarray)):
        return "(" + ", ".join(f"{float(x):.4g}" for x in loss) + ")"
    return f"{float(loss):.6g}"


def format_percent(percent: float | None, exact: bool = True) -> str:
    if percent is None or not np.isfinite(percent):
        return "–"
    return f"{'' if exact else '≥ '}{percent:.2f} %"


def state_text(nodes: ExploreNodes, row: int) -> str:
    text = STATE_LABELS[int(nodes.states[row])]
    if nodes.states[row] and not nodes.checked[row]:
        text += " (inferred)"
    return text


def node_tooltip(nodes: ExploreNodes, row: int) -> str:
    """Levels per attribute, state, loss (% and raw), suppressed records, as rich text."""
    exact = bool(nodes.checked[row])
    head = "Optimum · " if row == nodes.optimum else ""
    table = "".join(f"<tr><td>{name}</td><td align=right>&nbsp;{int(v)}</td></tr>"
                    for name, v in zip(nodes.attributes, nodes.levels[row]))
    lines = [f"<b>{head}[{', '.join(str(int(v)) for v in nodes.levels[row])}]</b>"
             f"<table cellspacing=0 cellpadding=1>{table}</table>"
             f"State: {state_text(nodes, row)}"]
    loss = nodes.raw_loss(row)
    what = "Information loss" if exact else "Information loss (lower bound)"
    lines.append(f"{what}: {format_percent(nodes.percent[row], exact)} "
                 f"(raw {format_loss(loss)})")
    if nodes.suppressed[row] >= 0:
        lines.append(f"Suppressed records: {int(nodes.suppressed[row]):,}")
    return "<br>".join(lines)
