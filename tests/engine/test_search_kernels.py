"""The kernels the optimal search's checks run on: roll-ups (direct-addressed, hashed,
and beyond 62-bit keys) give the classes a plain group-by gives, the same whichever
snapshot they roll up from; the entropy metric's per-attribute sums are numpy's to
the last bit (so that ties between transformations break as before)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine.classes import by_column
from engine.kernel import grouping
from engine.kernel.grouping import rollup_classes
from engine.kernel.reduce import segment_sums, selected_value_counts


def _hierarchy_maps(rng, sizes, levels):
    """Per attribute, level maps (level 0 the identity), each level coarser."""
    maps = []
    for size in sizes:
        per = [np.arange(size)]
        for _ in range(levels - 1):
            prev = per[-1]
            groups = max(1, (prev.max() + 1) // 2)
            per.append(np.minimum(prev // 2, groups - 1))
        maps.append(per)
    return maps


def _flat(maps):
    q = len(maps)
    depth = max(len(m) for m in maps)
    offsets = np.zeros((q, depth), np.int64)
    sizes = np.ones((q, depth), np.int64)
    flat, pos = [], 0
    for j, per in enumerate(maps):
        for lv, m in enumerate(per):
            offsets[j, lv] = pos
            sizes[j, lv] = m.max() + 1
            flat.append(m)
            pos += len(m)
    return np.concatenate(flat).astype(np.int32), offsets, sizes


def _naive(rep, counts, maps, levels):
    gen = np.stack([maps[j][levels[j]][rep[:, j]] for j in range(rep.shape[1])], axis=1)
    frame = pd.DataFrame(gen).assign(n=counts)
    keys = list(range(rep.shape[1]))
    grouped = frame.groupby(keys, sort=False).n.sum()  # first-appearance order
    return np.array(list(grouped.index)).reshape(len(grouped), -1), grouped.to_numpy()


@pytest.mark.parametrize("sizes", [(3, 5, 4), (40, 30, 20, 10), (2**21, 2**21, 2**21)])
def test_rollup_matches_group_by(sizes):
    """Small key spaces (direct), larger ones (hashed) and keys beyond 62 bits."""
    rng = np.random.default_rng(len(sizes))
    maps = _hierarchy_maps(rng, sizes, 3)
    flat, offsets, level_sizes = _flat(maps)
    m = 2000
    rep = np.stack([rng.integers(0, s, m) for s in sizes], axis=1).astype(np.int32)
    counts = rng.integers(1, 4, m).astype(np.int64)
    for levels in [(0,) * len(sizes), (1,) * len(sizes), (2, 0) + (1,) * (len(sizes) - 2)]:
        levels = np.array(levels, np.int64)
        for stored in (rep, by_column(rep)):
            group_of, first, class_counts, gen, class_rep = rollup_classes(
                stored, counts, flat, offsets, levels, level_sizes)
            assert np.array_equal(class_rep, rep[first])
            want_gen, want_counts = _naive(rep, counts, maps, levels)
            assert np.array_equal(gen, want_gen)
            assert np.array_equal(class_counts, want_counts)
            assert np.array_equal(gen[group_of], np.stack(
                [maps[j][levels[j]][rep[:, j]] for j in range(len(sizes))], axis=1))
            assert np.array_equal(group_of[first], np.arange(len(first)))


def test_rollup_paths_agree(monkeypatch):
    """Direct addressing and hashing give the same classes in the same order."""
    rng = np.random.default_rng(7)
    maps = _hierarchy_maps(rng, (30, 20, 10), 3)
    flat, offsets, sizes = _flat(maps)
    rep = np.stack([rng.integers(0, s, 500) for s in (30, 20, 10)], axis=1).astype(np.int32)
    counts = np.ones(500, np.int64)
    levels = np.array([0, 1, 0], np.int64)
    direct = rollup_classes(rep, counts, flat, offsets, levels, sizes)
    fn = grouping._rollup_keyed.py_func  # the same code without the direct table
    monkeypatch.setattr(grouping, "DIRECT_PER_ITEM", 0)
    monkeypatch.setattr(grouping, "DIRECT_MIN", 0)
    with np.errstate(over="ignore"):  # the hash multiplies with wrap-around
        hashed = fn(np.ascontiguousarray(rep.T), counts, flat, offsets, levels, sizes, True)
    for a, b in zip(direct[:4], hashed[1:5]):
        assert np.array_equal(a, b)
    # without the item->class map: the same classes
    lean = rollup_classes(rep, counts, flat, offsets, levels, sizes, need_groups=False)
    for a, b in zip(direct[1:], lean[1:]):
        assert np.array_equal(a, b)


def test_classes_do_not_depend_on_the_snapshot_rolled_up_from():
    """Classes come out in the order of their first record whichever finer partition
    they are rolled up from (so a search's results do not depend on its cache)."""
    rng = np.random.default_rng(3)
    maps = _hierarchy_maps(rng, (16, 12, 8), 4)
    flat, offsets, sizes = _flat(maps)
    rep = np.stack([rng.integers(0, s, 3000) for s in (16, 12, 8)], axis=1).astype(np.int32)
    counts = rng.integers(1, 3, 3000).astype(np.int64)
    top = np.array([2, 3, 1], np.int64)
    direct = rollup_classes(rep, counts, flat, offsets, top, sizes)
    mid = np.array([1, 1, 0], np.int64)
    _, first, mid_counts, _, mid_rep = rollup_classes(rep, counts, flat, offsets, mid, sizes)
    via = rollup_classes(mid_rep, mid_counts, flat, offsets, top, sizes)
    assert np.array_equal(direct[3], via[3])
    assert np.array_equal(direct[2], via[2])


def test_segment_sums_are_numpys():
    rng = np.random.default_rng(0)
    lengths = [0, 1, 5, 7, 8, 9, 15, 16, 17, 100, 128, 129, 300, 1000, 5000]
    values = rng.random(sum(lengths)) * 10.0 ** rng.integers(-6, 6, sum(lengths))
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    got = segment_sums(values, starts)
    want = np.array([values[a:b].sum() for a, b in zip(starts[:-1], starts[1:])])
    assert got.tobytes() == want.tobytes()


def test_selected_value_counts_are_bincounts():
    rng = np.random.default_rng(1)
    sizes = np.array([[7, 5], [12, 9], [3, 3]], np.int64)  # values per attribute and level
    levels = np.array([1, 1, 0], np.int64)
    gen = np.stack([rng.integers(0, s, 400) for s in (5, 9, 3)], axis=1).astype(np.int32)
    gen[:, 1] = np.where(gen[:, 1] == 4, 5, gen[:, 1])  # a value no class has
    selected = rng.random(400) < 0.3
    weights = rng.integers(1, 50, 400)
    values, starts, total = selected_value_counts(gen, selected, weights, sizes, levels)
    assert total == weights[selected].sum()
    for j in range(3):
        want = np.bincount(gen[selected, j], weights=weights[selected].astype(float),
                           minlength=sizes[j, levels[j]])
        assert values[starts[j]:starts[j + 1]].tobytes() == want[want > 0].tobytes()


def test_grouping_by_columns_matches_group_by():
    """The base snapshot's grouping (keys column by column, a table that grows with
    the groups) numbers groups by first appearance, as a group-by does."""
    from engine.kernel.grouping import group_columns, group_rows
    rng = np.random.default_rng(5)
    for m, sizes in [(50_000, (7, 300, 40)), (3000, (2, 3)), (10, (5,))]:
        columns = [rng.integers(0, s, m).astype(np.int32) for s in sizes]
        group_of, first = group_columns(columns, np.array(sizes), m)
        frame = pd.DataFrame(dict(enumerate(columns)))
        want = frame.groupby(list(frame.columns), sort=False).ngroup().to_numpy()
        assert np.array_equal(group_of, want)
        assert np.array_equal(group_of[first], np.arange(len(first)))
        assert np.array_equal(first, [np.flatnonzero(want == g)[0] for g in range(len(first))])
        rows = np.stack(columns, axis=1)
        assert np.array_equal(group_rows(rows, np.array(sizes))[0], want)
    # no columns: every row in one group
    group_of, first = group_columns([], np.zeros(0, np.int64), 4)
    assert group_of.tolist() == [0, 0, 0, 0] and first.tolist() == [0]
