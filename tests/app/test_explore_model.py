"""Explore's Qt-free parts against obvious references: layout, rasterizers, filters, nodes."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from app.perspectives.explore.filters import NodeFilter
from app.perspectives.explore.layout import node_positions, state_order_key
from app.perspectives.explore.nodes import ExploreNodes, relative_percents
from app.perspectives.explore.raster import (count_crossings, density_lut, rasterize_edges,
                                             stamp_nodes)
from engine.lattice import Lattice
from engine.result import relative_percent
from engine.solution_space import ANONYMOUS, NOT_ANONYMOUS, UNKNOWN, SolutionSpace


def small_result(radix=(3, 2, 4), seed: int = 1, dense: bool = True):
    """A result-shaped object over a small space: monotone states, some nodes checked."""
    lat = Lattice(tuple(f"a{i}" for i in range(len(radix))), (0,) * len(radix),
                  tuple(r - 1 for r in radix))
    space = SolutionSpace(lat, dense=dense)
    rng = np.random.default_rng(seed)
    levels = lat.all_levels()
    score = levels.sum(axis=1)
    for i in rng.choice(lat.size, lat.size // 2, replace=False):
        space.record(int(i), bool(score[i] >= 3), float(score[i]) / 10, int(10 - score[i]))
    if dense:
        space.lower_bounds = score / 20.0
        space.states[(space.states == 0) & (score >= 5)] = ANONYMOUS
    space.optimum_id = int(lat.id_of((0, 1, 2)))
    space.record(space.optimum_id, True, 0.3, 7)
    return SimpleNamespace(space=space, lattice=lat, loss_bounds=(0.0, 1.0))


def test_positions_put_rows_by_level_centred_and_distinct():
    lat = Lattice(("a", "b", "c"), (0, 0, 0), (2, 1, 3))
    heights = lat.all_levels().sum(axis=1)
    x, y = node_positions(heights, spacing=5.0)
    assert np.array_equal(y, heights * 5.0)
    for h in np.unique(heights):
        row = np.sort(x[heights == h])
        assert np.allclose(np.diff(row), 1.0)  # one unit apart
        assert row[0] == -row[-1]  # centred
    assert len({(a, b) for a, b in zip(x, y)}) == len(x)


def test_state_order_puts_the_frontier_in_one_place():
    states = np.array([ANONYMOUS, NOT_ANONYMOUS, UNKNOWN, ANONYMOUS, NOT_ANONYMOUS])
    checked = np.array([False, True, False, True, False])
    pct = np.array([10.0, 50.0, np.nan, 30.0, 5.0])
    x, _ = node_positions(np.zeros(5, dtype=int), state_order_key(states, checked, pct))
    order = [int(i) for i in np.argsort(x)]
    assert order == [1, 4, 2, 3, 0]  # not anonymous (checked first), unknown, anonymous


def naive_crossings(x0, y0, x1, y1, left, top, sx, sy, w, h):
    out = np.zeros((h, w), dtype=int)
    for a, b, c, d in zip(x0, y0, x1, y1):
        ax, ay, bx, by = (a - left) * sx, (b - top) * sy, (c - left) * sx, (d - top) * sy
        n = int(max(abs(bx - ax), abs(by - ay)) * 4) + 2
        hit = set()
        for t in np.linspace(0, 1, n):
            px = int(np.floor(ax + (bx - ax) * t + 0.5))
            py = int(np.floor(ay + (by - ay) * t + 0.5))
            if 0 <= px < w and 0 <= py < h:
                hit.add((py, px))
        for py, px in hit:
            out[py, px] += 1
    return out


def test_edge_crossings_draw_each_clipped_line_once_along_its_path():
    rng = np.random.default_rng(3)
    x0, y0, x1, y1 = (rng.uniform(-5, 25, 40) for _ in range(4))
    total = count_crossings(x0, y0, x1, y1, 0.0, 0.0, 1.0, 1.0, 20, 20).astype(int)
    summed = np.zeros_like(total)
    for seg in zip(x0, y0, x1, y1):
        a = [np.array([v]) for v in seg]
        fast = count_crossings(*a, 0.0, 0.0, 1.0, 1.0, 20, 20).astype(int)
        slow = naive_crossings(*a, 0.0, 0.0, 1.0, 1.0, 20, 20)  # densely sampled path
        summed += fast
        assert fast.max(initial=0) <= 1  # a line counts once per pixel
        # on the path (allowing rounding at the ends), and one pixel per step of the
        # longer axis, as a line should
        near = np.zeros_like(slow, dtype=bool)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                near |= np.roll(np.roll(slow > 0, dy, 0), dx, 1)
        assert not (fast.astype(bool) & ~near).any()
        if slow.any():
            ys, xs = np.nonzero(slow)
            assert fast.sum() >= max(np.ptp(xs), np.ptp(ys)) - 1
    assert np.array_equal(total, summed)
    # a horizontal line across the image lights exactly its row
    one = count_crossings(np.array([-3.0]), np.array([4.0]), np.array([30.0]), np.array([4.0]),
                          0.0, 0.0, 1.0, 1.0, 10, 8)
    assert one[4].tolist() == [1] * 10 and one.sum() == 10


def test_edge_image_is_premultiplied_and_darker_where_edges_overlap():
    lut = density_lut((110, 122, 140))
    px = rasterize_edges(np.array([0.0, 0.0]), np.array([1.0, 1.0]), np.array([9.0, 9.0]),
                         np.array([1.0, 1.0]), (0.0, 0.0, 9.0, 9.0), (10, 10), lut)
    single = rasterize_edges(np.array([0.0]), np.array([1.0]), np.array([9.0]),
                             np.array([1.0]), (0.0, 0.0, 9.0, 9.0), (10, 10), lut)
    alpha = lambda v: int(v) >> 24  # noqa: E731
    assert alpha(px[1, 5]) > alpha(single[1, 5]) > 0 == alpha(single[5, 5])
    for v in (int(px[1, 5]), int(single[1, 5])):
        a = v >> 24
        assert all(((v >> s) & 255) <= a for s in (0, 8, 16))  # premultiplied


def test_node_stamps_composite_later_styles_on_top():
    stamps = np.zeros((2, 3, 3), dtype=np.uint32)
    stamps[0, :, :] = 0xFF0000FF  # opaque blue square
    stamps[1, 1, 1] = 0x80800000  # half-transparent red centre (premultiplied)
    out = stamp_nodes(np.array([2.0, 2.0]), np.array([2.0, 2.0]), np.array([0, 1]), stamps, 5, 5)
    assert out[1, 1] == 0xFF0000FF and out[0, 0] == 0
    centre = int(out[2, 2])
    assert centre >> 24 == 255 and (centre >> 16) & 255 == 0x80 and centre & 255 == 0x7F
    # nodes off the image are skipped without error
    stamp_nodes(np.array([-10.0, 50.0]), np.array([2.0, 2.0]), np.array([0, 0]), stamps, 5, 5)


def test_relative_percents_match_the_engine():
    losses = np.array([0.0, 0.25, 1.0, np.nan])
    got = relative_percents(losses, 0.0, 1.0)
    assert np.allclose(got[:3], [relative_percent(v, 0.0, 1.0) for v in losses[:3]])
    assert np.isnan(got[3])
    rank = np.array([[1.0, 2.0], [3.0, 4.0]])
    got = relative_percents(rank, (0.0, 0.0), (4.0, 8.0))
    assert np.allclose(got, [relative_percent(tuple(r), (0.0, 0.0), (4.0, 8.0)) for r in rank])


def test_nodes_mirror_the_space_and_edges_are_direct_generalizations():
    res = small_result()
    nodes = ExploreNodes(res)
    space, lat = res.space, res.lattice
    assert nodes.whole and len(nodes) == lat.size
    assert np.array_equal(nodes.states, space.states)
    assert set(np.flatnonzero(nodes.checked).tolist()) == set(space.losses)
    for i in range(lat.size):
        info = space.info(i)
        assert nodes.percent[i] == pytest.approx(100 * info.loss)
        assert nodes.suppressed[i] == (space.suppressed[i] if i in space.losses else -1)
    lo, up = nodes.edges()
    pairs = {(int(a), int(b)) for a, b in zip(lo, up)}
    expected = {(i, lat.id_of(s)) for i in range(lat.size)
                for s in lat.successors(lat.levels_of(i))}
    assert pairs == expected
    assert nodes.levels_of(nodes.optimum) == (0, 1, 2)


def test_visited_part_grows_when_checks_are_recorded():
    res = small_result()
    nodes = ExploreNodes(res, max_shown=5)
    assert not nodes.whole
    assert set(nodes.ids.tolist()) == set(res.space.losses)
    missing = next(i for i in range(res.lattice.size) if i not in res.space.losses)
    levels = res.lattice.levels_of(missing)
    opt = nodes.levels_of(nodes.optimum)
    row = nodes.record(levels, True, 0.5, 3)
    assert nodes.row_of(levels) == row and nodes.checked[row] and nodes.percent[row] == 50.0
    assert nodes.levels_of(nodes.optimum) == opt  # the optimum row followed the insert
    assert np.all(np.diff(nodes.ids) > 0)
    lo, up = nodes.edges()
    for a, b in zip(lo, up):
        assert nodes.levels_of(b) in res.lattice.successors(nodes.levels_of(a))


@pytest.mark.filterwarnings("error")
def test_visited_part_of_a_lattice_beyond_int64():
    lat = Lattice(tuple(f"q{i}" for i in range(33)), (0,) * 33, (3,) * 33)
    assert lat.size > 2 ** 63
    space = SolutionSpace(lat, dense=False)
    near_top = (2,) + (3,) * 32
    for levels, anonymous, loss in ((lat.bottom, False, 1.0), (near_top, True, 0.4),
                                    (lat.top, True, 0.5)):
        space.record(lat.id_of(levels), anonymous, loss, 0)
    space.optimum_id = lat.id_of(near_top)
    nodes = ExploreNodes(SimpleNamespace(space=space, lattice=lat, loss_bounds=(0.0, 1.0)))
    assert len(nodes) == 3 and nodes.levels_of(nodes.optimum) == near_top
    assert nodes.checked.all() and nodes.percent.tolist() == [100.0, 40.0, 50.0]
    lo, up = nodes.edges()
    assert [(nodes.levels_of(a), nodes.levels_of(b)) for a, b in zip(lo, up)] == [
        (near_top, lat.top)]
    row = nodes.record((1,) * 33, True, 0.2, 3)
    assert nodes.row_of((1,) * 33) == row == 1 and nodes.levels_of(nodes.optimum) == near_top


def test_filters_select_what_they_say():
    res = small_result()
    nodes = ExploreNodes(res)
    levels = nodes.levels
    everything = NodeFilter()
    assert everything.mask(nodes).all()
    m = NodeFilter(states=frozenset({NOT_ANONYMOUS})).mask(nodes)
    assert np.array_equal(m, nodes.states == NOT_ANONYMOUS)
    m = NodeFilter(levels={"a2": (1, 2)}).mask(nodes)
    assert np.array_equal(m, (levels[:, 2] >= 1) & (levels[:, 2] <= 2))
    m = NodeFilter(loss=(20.0, 40.0), checked_only=True).mask(nodes)
    assert np.array_equal(m, nodes.checked & (nodes.percent >= 20 - 1e-9)
                          & (nodes.percent <= 40 + 1e-9))
    m = NodeFilter(optimum_only=True).mask(nodes)
    assert np.flatnonzero(m).tolist() == [nodes.optimum]
