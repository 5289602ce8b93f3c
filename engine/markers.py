"""The marker written for suppressed values in a released table: one definition.

Every writer and reader of released data (the released table, `verify`, the
output checks, the statistics, the GUI) asks `suppression_marker` or uses
`SUPPRESSED`, never a literal, so that the marker can become a job setting in
one place.
"""
from __future__ import annotations

#: the default marker of a suppressed quasi-identifier value (ARX's "*")
SUPPRESSED = "*"


def suppression_marker(job=None) -> str:
    """The marker of suppressed values in ``job``'s released table (its
    ``[transformation] suppression_string``); `SUPPRESSED` without a job."""
    return SUPPRESSED if job is None else str(job.transformation.suppression_string)
