"""Cell-level local suppression to reach k-anonymity (sdcMicro's ``localSuppression``):
``[transformation] suppression = "cells"``.

ARX suppresses a record that violates the privacy models whole (all its
quasi-identifiers become the suppression string). sdcMicro instead suppresses single
cells, as few as it can, and counts a suppressed cell as matching any value (the
wildcard rule): a record's frequency is the number of records that agree with it
wherever neither has a suppressed cell. The greedy algorithm (Templ, Kowarik, Meindl,
JSS 2015; sdcMicro's ``localSuppression``) takes each key below k, finds
the keys nearest to it (fewest differing cells) and suppresses the cell of the least
important quasi-identifier in which they differ, until every key matches at least k
records.

How it fits the search (docs/guide/survey-methods.md): the search runs as usual, the
suppression limit counting the records to be treated (those of classes violating
k-anonymity at the levels found); the release then treats those records by
suppressing cells instead of whole records, on the generalized values, and checks
that every record matches at least k records with wildcards (`check_wildcard_k`).
Records of classes of size k or more are never touched (suppression only adds
wildcards, so a key's frequency never falls). Records with equal generalized
quasi-identifiers are treated alike: the algorithm runs on the distinct keys with
their record counts (sdcMicro's loop over records gives the same keys the same cells
in practice; treating them together makes the result independent of record order).

``importance`` per quasi-identifier (1: suppressed last) orders the choice; absent,
quasi-identifiers with more distinct released values are suppressed first (sdcMicro's
default). ``combinations = m``: k-anonymity for every combination of m
quasi-identifiers (sdcMicro's ``combs``), one combination after the other.
"""
from __future__ import annotations

import itertools
import threading
import weakref

import numpy as np

from engine.errors import DataError, JobError

#: the released cells of a problem per levels (one greedy run per transformation)
_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def cells_mode(job) -> bool:
    return getattr(job.transformation, "suppression", "records") == "cells"


def k_of(job) -> int:
    """The k cell suppression reaches: the job's k-anonymity."""
    ks = [m.k for m in job.privacy if m.name == "k-anonymity"]
    return max(ks)


def check_cell_suppression(job) -> None:
    """Refuse settings cell suppression cannot honour (called when the job is read)."""
    tr = job.transformation
    if not cells_mode(job):
        if tr.combinations is not None:
            raise JobError("[transformation] combinations only applies to suppression = "
                           "\"cells\"")
        for name, a in job.attributes.items():
            if a.importance is not None:
                raise JobError(f"[attributes.\"{name}\"] importance only applies to "
                               f"[transformation] suppression = \"cells\"")
        return
    names = [m.name for m in job.privacy]
    if "k-anonymity" not in names:
        raise JobError("[transformation] suppression = \"cells\" reaches k-anonymity: the "
                       "job needs a [[privacy]] model = \"k-anonymity\"")
    others = sorted({n for n in names if n != "k-anonymity"})
    if others:
        raise JobError(f"[transformation] suppression = \"cells\" guarantees k-anonymity "
                       f"only; the job also has {', '.join(others)}: use suppression = "
                       f"\"records\" with those models")
    if tr.local_recoding:
        raise JobError("[transformation] suppression = \"cells\" and local_recoding both "
                       "treat the violating records: choose one")
    if job.subset:
        raise JobError("[transformation] suppression = \"cells\" does not work with a "
                       "[subset]")
    if job.person is not None:
        raise JobError("[transformation] suppression = \"cells\" counts records: it does "
                       "not work with [data] person")
    qis = [n for n, a in job.attributes.items() if a.type == "quasi-identifying"]
    for name in qis:
        if job.attributes[name].transformation == "microaggregation":
            raise JobError(f"[attributes.\"{name}\"]: microaggregation does not work with "
                           f"[transformation] suppression = \"cells\"")
    for name, a in job.attributes.items():
        if a.importance is not None and a.type != "quasi-identifying":
            raise JobError(f"[attributes.\"{name}\"] importance only applies to "
                           f"quasi-identifiers")
    if tr.combinations is not None and tr.combinations > len(qis):
        raise JobError(f"[transformation] combinations = {tr.combinations} is more than the "
                       f"{len(qis)} quasi-identifiers")


def preference(importance: list[int | None], distinct: list[int]) -> np.ndarray:
    """Quasi-identifier positions in the order their cells are suppressed: the highest
    importance number first; absent importances count as more than any given one, and
    among equals the attribute with more distinct values goes first (sdcMicro's default
    importance), then the data's order."""
    top = max([i for i in importance if i is not None] + [0]) + 1
    keys = [(-(imp if imp is not None else top), -distinct[j], j)
            for j, imp in enumerate(importance)]
    return np.asarray([j for *_, j in sorted(keys)], dtype=np.int64)


def suppress(keys: np.ndarray, counts: np.ndarray, k: int, order: np.ndarray,
             combinations: int | None = None) -> tuple[np.ndarray, int]:
    """The suppressed cells of ``keys`` (distinct keys x quasi-identifiers, codes >= 0)
    with their record ``counts``: a boolean mask, and the number of cells suppressed.
    Raises DataError when k cannot be reached (fewer than k records)."""
    from engine.kernel.cells import suppress_cells
    pat = np.array(keys, dtype=np.int64, copy=True)
    counts = np.asarray(counts, dtype=np.int64)
    m = pat.shape[1]
    subsets = ([tuple(range(m))] if combinations is None or combinations >= m
               else list(itertools.combinations(range(m), combinations)))
    total = 0
    for subset in subsets:
        active = np.zeros(m, dtype=np.bool_)
        active[list(subset)] = True
        fk = frequencies(pat, counts, active)
        done = suppress_cells(pat, counts, int(k), order[active[order]], active, fk)
        if done < 0:
            raise DataError(f"cell suppression cannot reach {k}-anonymity: the data "
                                  f"has fewer than {k} records")
        total += done
    return pat < 0, total


def frequencies(pat: np.ndarray, counts: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Each key's records matched with wildcards on the ``active`` columns: by grouping
    equal keys when no active cell is suppressed (the start), else pairwise."""
    sub = pat[:, active]
    if not (sub < 0).any():
        _, group = np.unique(sub, axis=0, return_inverse=True)
        group = group.reshape(-1)
        return np.bincount(group, weights=counts).astype(np.int64)[group] * (counts > 0)
    from engine.kernel.cells import wildcard_frequencies
    return wildcard_frequencies(pat, counts, active)


def check_wildcard_k(keys: np.ndarray, suppressed: np.ndarray, counts: np.ndarray, k: int,
                     combinations: int | None = None) -> int:
    """The records whose key (suppressed cells matching anything) matches fewer than k
    records, on all quasi-identifiers or on each combination of ``combinations``."""
    pat = np.where(suppressed, -1, np.asarray(keys, dtype=np.int64))
    counts = np.asarray(counts, dtype=np.int64)
    m = pat.shape[1]
    subsets = ([tuple(range(m))] if combinations is None or combinations >= m
               else list(itertools.combinations(range(m), combinations)))
    bad = np.zeros(len(pat), dtype=bool)
    for subset in subsets:
        fk = pattern_frequencies(pat, counts, list(subset))
        bad |= (counts > 0) & (fk < k)
    return int(counts[bad].sum())


def pattern_frequencies(pat: np.ndarray, counts: np.ndarray, columns: list[int]) -> np.ndarray:
    """Each key's records matched with wildcards on ``columns``, recounted without the
    greedy kernel: keys grouped by which of the columns they suppress; for each pair of
    such patterns the keys are joined on the columns both keep (np.unique groups)."""
    sub = pat[:, columns]
    wild = sub < 0
    patterns, pid = np.unique(wild, axis=0, return_inverse=True)
    pid = pid.reshape(-1)
    members = [np.flatnonzero(pid == i) for i in range(len(patterns))]
    # mixed-radix place values of the columns when every key fits one int64
    sizes = [int(sub[:, j].max()) + 1 if len(sub) else 1 for j in range(sub.shape[1])]
    radix = None
    if float(np.prod([float(max(x, 1)) for x in sizes])) < 2.0 ** 62:
        radix = np.cumprod([1] + [max(x, 1) for x in sizes[:-1]]).astype(np.int64)
    fk = np.zeros(len(pat), dtype=np.int64)
    for ia, a_rows in enumerate(members):
        for ib, b_rows in enumerate(members):
            kept = ~(patterns[ia] | patterns[ib])
            if not kept.any():
                fk[a_rows] += counts[b_rows].sum()
                continue
            if radix is not None:  # one integer per key on the kept columns
                code = (sub[:, kept] * radix[kept]).sum(axis=1) if kept.sum() > 1 else \
                    sub[:, kept][:, 0]
                kb, cb = code[b_rows], counts[b_rows]
                order = np.argsort(kb, kind="stable")
                kb, cb = kb[order], cb[order]
                uniq, first = np.unique(kb, return_index=True)
                sums = np.add.reduceat(cb, first) if len(first) else cb[:0]
                ka = code[a_rows]
                at = np.minimum(np.searchsorted(uniq, ka), max(len(uniq) - 1, 0))
                hit = (uniq[at] == ka) if len(uniq) else np.zeros(len(ka), dtype=bool)
                fk[a_rows] += np.where(hit, sums[at] if len(uniq) else 0, 0)
                continue
            both = np.concatenate([sub[a_rows][:, kept], sub[b_rows][:, kept]])
            _, group = np.unique(both, axis=0, return_inverse=True)
            group = group.reshape(-1)
            sums = np.bincount(group[len(a_rows):], weights=counts[b_rows],
                               minlength=int(group.max()) + 1)
            fk[a_rows] += sums[group[:len(a_rows)]].astype(np.int64)
    return fk


def class_cells(problem, levels: tuple[int, ...], classes) -> np.ndarray:
    """Per class of the transformation ``levels``: which quasi-identifier cells are
    suppressed (classes x quasi-identifiers), computed once per levels and kept."""
    key = tuple(levels)
    with _LOCK:
        found = _CACHE.get(problem, {}).get(key)
    if found is not None:
        return found
    job = problem.job
    counts = np.asarray(problem.record_counts(classes), dtype=np.int64)
    gen = np.asarray(classes.gen, dtype=np.int64).reshape(len(counts), len(problem.qis))
    live = counts > 0
    distinct = [len(np.unique(gen[live, j])) for j in range(gen.shape[1])]
    importance = [job.attributes[q].importance for q in problem.qis]
    k = k_of(job)
    cells, done = suppress(gen, counts, k, preference(importance, distinct),
                           job.transformation.combinations)
    left = check_wildcard_k(gen, cells, counts, k, job.transformation.combinations)
    if left:  # the algorithm's own final check (verify recounts from the file)
        raise DataError(f"cell suppression left {left} records matching fewer than "
                              f"{k} records")
    cells.flags.writeable = False
    with _LOCK:
        _CACHE.setdefault(problem, {})[key] = cells
    return cells


def cell_figures(released) -> dict:
    """What cell suppression did to a released table: cells suppressed per
    quasi-identifier, records touched, and the k reached."""
    cells = released.base_cells
    if cells is None:
        return {}
    row_to_base = released.problem.classifier.row_to_base
    per_base = np.bincount(row_to_base, minlength=len(cells))
    per_qi = {q: int(per_base[cells[:, j]].sum()) for j, q in enumerate(released.qis)}
    job = released.problem.job
    return {"suppression": "cells", "k": k_of(job),
            "combinations": job.transformation.combinations,
            "cells_suppressed": int(sum(per_qi.values())),
            "records_with_suppressed_cells": int(per_base[cells.any(axis=1)].sum()),
            "cells_suppressed_per_attribute": per_qi}


def released_frequencies(released) -> np.ndarray:
    """Per distinct released key (generalized values with suppressed cells) of a
    release with cell suppression: the records it matches with wildcards."""
    from engine.kernel.cells import wildcard_frequencies
    problem = released.problem
    qis = len(released.qis)
    counts = np.asarray(problem.record_counts(released.classes), dtype=np.int64)
    gen = np.asarray(released.classes.gen, dtype=np.int64).reshape(len(counts), qis)
    # the cells of each class: those of any of its base items (equal within a class)
    base_to_class = released._base_to_class
    cells = np.zeros(gen.shape, dtype=bool)
    cells[base_to_class] = released.base_cells
    pat = np.where(cells, -1, gen)
    keys, group = np.unique(pat, axis=0, return_inverse=True)
    merged = np.bincount(group.reshape(-1), weights=counts).astype(np.int64)
    fk = wildcard_frequencies(keys, merged, np.ones(qis, dtype=np.bool_))
    return fk[merged > 0]
