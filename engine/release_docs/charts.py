"""Distribution charts for the release report: per quasi-identifier the input's and the
output's most frequent values, side by side (matplotlib, Agg canvas, no pyplot state)."""
from __future__ import annotations

import io

INPUT_COLOR = "#7f8c9a"
OUTPUT_COLOR = "#2f6db3"


def distribution_png(attribute: str, input_counts: list[tuple[str, int]],
                     output_counts: list[tuple[str, int]], dpi: int = 150,
                     input_numbers=None) -> bytes:
    """A PNG with two bar charts: input values and released values (most frequent
    first). With ``input_numbers`` (a numeric input with many values) the input side
    is a histogram of the numbers instead."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    rows = max(len(input_counts), len(output_counts), 1)
    fig = Figure(figsize=(7.2, 0.9 + 0.22 * rows), dpi=dpi)
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2)
    total = max(sum(c for _, c in input_counts), 1)
    for ax, counts, title, color in ((axes[0], input_counts, "input", INPUT_COLOR),
                                     (axes[1], output_counts, "released", OUTPUT_COLOR)):
        if title == "input" and input_numbers is not None:
            _histogram(ax, input_numbers, f"{attribute}: input", total)
            continue
        labels = [_short(v) for v, _ in counts][::-1]
        shares = [100.0 * c / total for _, c in counts][::-1]
        ax.barh(range(len(labels)), shares, color=color, height=0.7)
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.set_title(f"{attribute}: {title}", fontsize=9)
        ax.set_xlabel("% of records", fontsize=7)
        ax.tick_params(axis="x", labelsize=7)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _histogram(ax, numbers, title: str, total: int) -> None:
    import numpy as np
    weights = np.full(len(numbers), 100.0 / total)
    ax.hist(numbers, bins=min(30, max(5, len(np.unique(numbers)))), weights=weights,
            color=INPUT_COLOR)
    ax.set_title(title + " (histogram)", fontsize=9)
    ax.set_ylabel("% of records", fontsize=7)
    ax.tick_params(labelsize=7)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _short(text: str, width: int = 28) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"
