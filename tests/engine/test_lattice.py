"""The lattice: ids, neighbours, enumeration, huge sizes."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from engine.lattice import Lattice


def test_huge_lattice_is_representable():
    lat = Lattice(tuple(f"q{i}" for i in range(30)), (0,) * 30, (5,) * 30)
    assert lat.size == 6 ** 30 and lat.size > 1e16
    top = lat.top
    assert lat.levels_of(lat.id_of(top)) == top
    assert lat.id_of(lat.bottom) == 0 and lat.id_of(top) == lat.size - 1
    assert lat.height == 150
    assert len(lat.predecessors(top)) == 30 and lat.successors(top) == []


@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3)), min_size=1, max_size=4))
def test_ids_round_trip_and_match_enumeration(ranges):
    lows = tuple(min(a, b) for a, b in ranges)
    highs = tuple(max(a, b) for a, b in ranges)
    lat = Lattice(tuple(f"a{i}" for i in range(len(ranges))), lows, highs)
    every = lat.all_levels()
    assert len(every) == lat.size
    assert np.array_equal(lat.ids_of(every), np.arange(lat.size))
    for i, row in enumerate(every):
        assert lat.levels_of(i) == tuple(int(x) for x in row)
        for s in lat.successors(tuple(row)):
            assert sum(s) == sum(row) + 1 and lat.contains(s)
        for p in lat.predecessors(tuple(row)):
            assert sum(p) == sum(row) - 1 and lat.contains(p)


def test_invalid_range_named():
    with pytest.raises(ValueError, match="attribute 'age'"):
        Lattice(("age",), (3,), (1,))


@pytest.mark.filterwarnings("error")  # no overflow, hidden or shown
def test_sparse_solution_space_beyond_int64():
    from engine.solution_space import ANONYMOUS, SolutionSpace

    lat = Lattice(tuple(f"q{i}" for i in range(33)), (0,) * 33, (3,) * 33)
    assert lat.size == 4 ** 33 > 2 ** 63
    space = SolutionSpace(lat, dense=False)
    top = lat.id_of(lat.top)
    assert top == lat.size - 1 > 2 ** 63
    space.record(top, True, 0.5, 0)
    info = space.info(top)
    assert info.levels == lat.top and info.checked and info.loss == 0.5
    assert space.state(top) == ANONYMOUS and space.state(0) == 0
    assert space.counts() == {"anonymous": 1, "not-anonymous": 0,
                              "unknown": lat.size - 1, "checked": 1}
