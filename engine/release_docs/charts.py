"""Distribution charts for the release report: per quasi-identifier the input's and the
output's most frequent values, side by side, drawn as vector graphics straight into
the PDF (fpdf2: rectangles, lines and text; no raster image, no plotting library).

The chart's data is `engine.release_docs.report.distributions`'s: value shares in % of
the input's records (a histogram of the numbers for a numeric input with many values,
the bins of ``numpy.histogram``). Its text (titles, value labels, ticks) is the PDF's
own text: it can be searched and read back."""
from __future__ import annotations

import math

import numpy as np

INPUT_COLOR = (0x7F, 0x8C, 0x9A)
OUTPUT_COLOR = (0x2F, 0x6D, 0xB3)
AXIS_COLOR = (0x33, 0x33, 0x33)
GRID_COLOR = (0xE4, 0xE7, 0xEB)

ROW_MM = 4.0          # height per value row (the larger side's rows set the height)
TITLE_MM = 6.0        # title band above the plot
AXIS_MM = 8.5         # tick labels and axis label below the plot
GAP_MM = 8.0          # between the two panels
HIST_BINS = (5, 30)   # a histogram has between 5 and 30 bins (fewer when fewer values)


def chart_height(input_counts, output_counts) -> float:
    """Height in mm of one chart (both panels)."""
    rows = max(len(input_counts), len(output_counts), 1)
    return TITLE_MM + max(rows * ROW_MM, 14.0) + AXIS_MM


def draw_distribution(doc, x: float, y: float, width: float, attribute: str,
                      input_counts: list[tuple[str, int]],
                      output_counts: list[tuple[str, int]], input_numbers=None) -> float:
    """Draw the chart of ``attribute`` with its top-left corner at (``x``, ``y``) mm on
    ``doc`` (``engine.release_docs.pdf._Doc``): input values (grey) and released values
    (blue) as horizontal bars of their share of records, most frequent first; with
    ``input_numbers`` the input side is a histogram of the numbers. Returns the height."""
    height = chart_height(input_counts, output_counts)
    total = max(sum(c for _, c in input_counts), 1)
    panel = (width - GAP_MM) / 2
    for i, (counts, title, color) in enumerate(((input_counts, "input", INPUT_COLOR),
                                                (output_counts, "released", OUTPUT_COLOR))):
        left = x + i * (panel + GAP_MM)
        if i == 0 and input_numbers is not None:
            _histogram(doc, left, y, panel, height, attribute, input_numbers, total)
        else:
            _bars(doc, left, y, panel, height, f"{attribute}: {title}", counts, total, color)
    return height


def histogram(numbers, total: int) -> tuple[np.ndarray, np.ndarray]:
    """The input histogram's shares (% of ``total`` records) and bin edges."""
    numbers = np.asarray(numbers, dtype=float)
    bins = min(HIST_BINS[1], max(HIST_BINS[0], len(np.unique(numbers))))
    shares, edges = np.histogram(numbers, bins=bins,
                                 weights=np.full(len(numbers), 100.0 / total))
    return shares, edges


def _bars(doc, x, y, width, height, title, counts, total, color) -> None:
    pdf = doc.pdf
    _title(doc, x, y, width, title)
    labels = [_short(v) for v, _ in counts]
    shares = [100.0 * c / total for _, c in counts]
    doc.font(7)
    label_w = max((pdf.get_string_width(t) for t in labels), default=0.0) + 2.0
    plot_x, plot_y = x + label_w, y + TITLE_MM
    plot_w, plot_h = width - label_w - 1.0, height - TITLE_MM - AXIS_MM
    hi = max(shares, default=0.0) * 1.05 or 1.0
    ticks = nice_ticks(0.0, hi)
    _grid_x(doc, plot_x, plot_y, plot_w, plot_h, ticks, 0.0, hi)
    row = plot_h / max(len(counts), 1)
    pdf.set_fill_color(*color)
    for k, (label, share) in enumerate(zip(labels, shares)):
        top = plot_y + k * row
        if share > 0:
            pdf.rect(plot_x, top + 0.15 * row, plot_w * share / hi, 0.7 * row, style="F")
        doc.font(7, color=AXIS_COLOR)
        pdf.text(plot_x - 1.0 - pdf.get_string_width(label), top + row / 2 + 0.9, label)
    _axes(doc, plot_x, plot_y, plot_w, plot_h)
    _x_axis(doc, plot_x, plot_y + plot_h, plot_w, ticks, 0.0, hi, "% of records")


def _histogram(doc, x, y, width, height, attribute, numbers, total) -> None:
    pdf = doc.pdf
    _title(doc, x, y, width, f"{attribute}: input (histogram)")
    shares, edges = histogram(numbers, total)
    doc.font(7)
    hi = float(shares.max()) * 1.05 if len(shares) and shares.max() > 0 else 1.0
    y_ticks = nice_ticks(0.0, hi)
    label_w = max(pdf.get_string_width(_tick(t, y_ticks)) for t in y_ticks) + 5.5
    plot_x, plot_y = x + label_w, y + TITLE_MM
    plot_w, plot_h = width - label_w - 1.0, height - TITLE_MM - AXIS_MM
    lo_x, hi_x = float(edges[0]), float(edges[-1])
    pad = 0.05 * (hi_x - lo_x) or 0.5
    lo_x, hi_x = lo_x - pad, hi_x + pad

    def at(v):
        return plot_x + plot_w * (v - lo_x) / (hi_x - lo_x)
    pdf.set_fill_color(*INPUT_COLOR)
    for share, a, b in zip(shares, edges[:-1], edges[1:]):
        if share > 0:
            h = plot_h * share / hi
            pdf.rect(at(a), plot_y + plot_h - h, at(b) - at(a), h, style="F")
    doc.font(7, color=AXIS_COLOR)
    pdf.set_draw_color(*AXIS_COLOR)
    pdf.set_line_width(0.2)
    for t in y_ticks:
        ty = plot_y + plot_h - plot_h * t / hi
        pdf.line(plot_x - 0.8, ty, plot_x, ty)
        text = _tick(t, y_ticks)
        pdf.text(plot_x - 1.3 - pdf.get_string_width(text), ty + 0.9, text)
    with pdf.rotation(90, x + 2.0, plot_y + plot_h / 2):
        label = "% of records"
        pdf.text(x + 2.0 - pdf.get_string_width(label) / 2, plot_y + plot_h / 2 + 0.9, label)
    _axes(doc, plot_x, plot_y, plot_w, plot_h)
    _x_axis(doc, plot_x, plot_y + plot_h, plot_w, nice_ticks(lo_x, hi_x), lo_x, hi_x, None)


def _title(doc, x, y, width, title) -> None:
    doc.font(9)
    text = _short(title, 60)
    doc.pdf.text(x + (width - doc.pdf.get_string_width(text)) / 2, y + 4.0, text)


def _grid_x(doc, x, y, w, h, ticks, lo, hi) -> None:
    pdf = doc.pdf
    pdf.set_draw_color(*GRID_COLOR)
    pdf.set_line_width(0.15)
    for t in ticks[1:]:
        tx = x + w * (t - lo) / (hi - lo)
        pdf.line(tx, y, tx, y + h)


def _axes(doc, x, y, w, h) -> None:
    pdf = doc.pdf
    pdf.set_draw_color(*AXIS_COLOR)
    pdf.set_line_width(0.2)
    pdf.line(x, y, x, y + h)          # left spine
    pdf.line(x, y + h, x + w, y + h)  # bottom spine (top and right are left out)


def _x_axis(doc, x, y, w, ticks, lo, hi, label) -> None:
    pdf = doc.pdf
    doc.font(7, color=AXIS_COLOR)
    pdf.set_draw_color(*AXIS_COLOR)
    pdf.set_line_width(0.2)
    for t in ticks:
        tx = x + w * (t - lo) / (hi - lo)
        pdf.line(tx, y, tx, y + 0.8)
        text = _tick(t, ticks)
        pdf.text(tx - pdf.get_string_width(text) / 2, y + 3.6, text)
    if label:
        pdf.text(x + (w - pdf.get_string_width(label)) / 2, y + 7.2, label)


def nice_ticks(lo: float, hi: float, most: int = 7) -> list[float]:
    """Round tick values within [lo, hi]: steps of 1, 2, 2.5 or 5 times a power of 10,
    at most ``most`` of them."""
    span = hi - lo
    if not math.isfinite(span) or span <= 0:
        return [lo]
    magnitude = 10.0 ** math.floor(math.log10(span / most))
    for m in (1, 2, 2.5, 5, 10):
        step = m * magnitude
        if span / step <= most - 1:
            break
    first = math.ceil(lo / step - 1e-9)
    return [round(k * step, 10) for k in range(first, int(math.floor(hi / step + 1e-9)) + 1)]


def _tick(value: float, ticks: list[float]) -> str:
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    if float(step).is_integer() and float(value).is_integer():
        return f"{int(value)}"
    return f"{value:g}"


def _short(text: str, width: int = 28) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"
