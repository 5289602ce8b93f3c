"""Analyze utility's bar charts: every category label drawn lies inside its axis (none
cut in half by the chart's edge), and a few categories keep all their labels."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QImage, QPainter

from app.perspectives.utility.charts import FrequencyChart


def drawn_labels(axis):
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _axis, _ticks, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(rect, text) for rect, _flags, text in texts]


@pytest.mark.parametrize("n, height", [(72, 230), (41, 160), (2, 200), (7, 240)])
def test_category_labels_stay_inside_the_axis(qtbot, n, height):
    chart = FrequencyChart("#7b8ca3")
    qtbot.addWidget(chart)
    chart.resize(380, height)
    chart.show()
    qtbot.waitExposed(chart)
    values = [f"v{i}" for i in range(n)]
    chart.set_frequencies(values, np.full(n, 1 / n))
    axis = chart.axis
    bounds = axis.mapRectFromParent(axis.geometry())
    labels = drawn_labels(axis)
    assert labels
    for rect, text in labels:
        assert bounds.top() <= rect.top() and rect.bottom() <= bounds.bottom(), (text, rect)
    if n <= 7:  # a few categories: each one labelled
        assert [t for _r, t in labels] == values
