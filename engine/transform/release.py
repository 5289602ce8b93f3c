"""The released table's columns beyond generalized labels: microaggregated attributes,
coding rules on insensitive attributes, scrubbed identifiers, the suppression string
and removed values.

``finish_columns`` is applied by ``engine.output.transform`` (the one released-table
function) to the columns it built, so export, Utility and verify see one table.
"""
from __future__ import annotations

import numpy as np

from engine.config import INSENSITIVE, SENSITIVE
from engine.transform.coding import RULES, code_values
from engine.transform.identifiers import scrub_values, scrubbed_names
from engine.transform.clustering import scaled_matrix, split_classes
from engine.transform.microaggregation import aggregate_by_class, numbers, utility
from engine.transform.perturbation import perturbed, perturbed_names


def finished_names(problem, names) -> set[str]:
    """The columns among ``names`` that `finish_columns` may change (the released table
    builds those whole; the others it reads cell by cell)."""
    job = problem.job
    out = {spec.attribute for spec in problem.micro}
    for name in names:
        a = job.attributes.get(name)
        kind = a.type if a is not None else INSENSITIVE
        if kind == INSENSITIVE and a is not None and a.transformation in RULES:
            out.add(name)
        if job.transformation.remove_suppressed_values and kind in (SENSITIVE, INSENSITIVE):
            out.add(name)
        if a is not None and getattr(a, "scrub", False):
            out.add(name)
    out.update(perturbed_names(job))
    return out & set(names)


def finish_columns(problem, columns: dict, row_class: np.ndarray,
                   suppressed: np.ndarray) -> dict:
    """Replace microaggregated columns by their class aggregates, code insensitive
    attributes under their rules, and (``remove_suppressed_values``) blank the
    sensitive and insensitive values of suppressed records with the suppression
    string. ``columns`` maps names to object arrays; suppressed QI cells already hold
    the suppression string."""
    job = problem.job
    marker = job.transformation.suppression_string
    released = ~suppressed
    clusters = mdav_clusters(problem, row_class, released)
    for spec in problem.micro:
        if spec.attribute not in columns:
            continue
        original = problem.table.column(spec.attribute).values()
        groups = clusters if spec.clustering == "mdav" else row_class
        values = aggregate_by_class(original, groups, released, spec, problem.table.weights)
        values[suppressed] = marker
        columns[spec.attribute] = values
    for name, a in job.attributes.items():
        if name in columns and a.type == INSENSITIVE and a.transformation in RULES:
            columns[name] = code_values(columns[name], a, name, marker)
    moved = [n for n in perturbed_names(job) if n in columns]
    if moved:  # PRAM, noise, rank swapping, shuffling (engine/transform/perturbation.py)
        done = perturbed(problem)
        for name in moved:
            columns[name] = done.values[name].copy()
    for name in scrubbed_names(job):  # identifiers replaced by their kind: [PHONE]
        if name in columns:
            columns[name] = scrub_values(problem, name, np.asarray(columns[name],
                                                                   dtype=object))[0]
    if job.transformation.remove_suppressed_values and suppressed.any():
        for name in columns:
            a = job.attributes.get(name)
            kind = a.type if a is not None else INSENSITIVE
            if kind in (SENSITIVE, INSENSITIVE):
                col = np.asarray(columns[name], dtype=object).copy()
                col[suppressed] = marker
                columns[name] = col
    return columns


def mdav_clusters(problem, row_class: np.ndarray, released: np.ndarray) -> np.ndarray | None:
    """Each row's MDAV cluster over the job's ``clustering = "mdav"`` attributes (a
    refinement of ``row_class``), or None without such attributes."""
    specs = [s for s in problem.micro if s.clustering == "mdav"]
    if not specs:
        return None
    columns = [numbers(problem.table.column(s.attribute).values(), s.attribute)
               for s in specs]
    k = max([m.implied_class_size() for m in problem.models] + [1])
    return split_classes(problem, scaled_matrix(columns), row_class, released, k)


def microaggregation_utility(problem, released) -> dict:
    """Per microaggregated attribute of the released table ``released``
    (`engine.output.ReleasedTable`): its function, squared error and the released
    values' statistics (over released records; a frequency table's rows weighted)."""
    out = {}
    kept = ~np.asarray(released.suppressed_rows, dtype=bool)
    for spec in problem.micro:
        if spec.attribute not in released.names:
            continue
        original = problem.table.column(spec.attribute).values()
        out[spec.attribute] = utility(original, released.values(spec.attribute), kept, spec,
                                      problem.table.weights)
    return out
