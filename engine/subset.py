"""Research subsets: rows selected by index list, row file or query."""
from __future__ import annotations

import numpy as np

from engine.config import Job
from engine.data.table import EncodedTable
from engine.errors import JobError


def resolve_subset(job: Job, table: EncodedTable) -> np.ndarray | None:
    """Boolean row mask of the job's ``[subset]``, or None when it has none."""
    spec = job.subset
    if not spec:
        return None
    mask = np.zeros(table.n_rows, dtype=bool)
    if "indices" in spec:
        idx = np.asarray(spec["indices"], dtype=np.int64)
    elif "rows" in spec:
        path = job.resolve(spec["rows"])
        try:
            text = path.read_text()
        except OSError as e:
            raise JobError(f"[subset] rows file {path} cannot be read: {e}") from None
        idx = []
        for i, line in enumerate(text.splitlines(), start=1):
            line = line.strip()
            if not line:
                continue
            try:
                idx.append(int(line))
            except ValueError:
                raise JobError(f"[subset] rows file {path} line {i}: '{line}' is not a "
                               f"row index") from None
        idx = np.asarray(idx, dtype=np.int64)
    elif "query" in spec:
        from engine.query import evaluate_query
        return evaluate_query(spec["query"], table)
    else:
        raise JobError("[subset] needs 'rows' (a file of row indices) or 'query'")
    bad = idx[(idx < 0) | (idx >= table.n_rows)]
    if len(bad):
        raise JobError(f"[subset] row index {int(bad[0])} is outside the data "
                       f"(0..{table.n_rows - 1})")
    mask[idx] = True
    return mask
