"""Distinct persons per class (engine/kernel/person_counts.py) against a plain recount:
random rows of persons that stay in one combination, spread over several (alone, with
a sensitive value that changes or not, or in the same way as others: shared keys), or
over very many; rows outside a research subset; chains of roll-ups in any order. Then
whole jobs of spread persons under suppression and the l-diversity family, recounted
from the released file and accepted by ``verify``."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from engine.kernel.person_counts import PersonRows


def _rows(rng, n_persons=150, n_values=1):
    """Per row: its person, value and base combination (an int), persons of every kind
    (module docstring)."""
    person, value, combo = [], [], []
    patterns = []
    for p in range(n_persons):
        kind = rng.integers(0, 5)
        n = int(rng.integers(1, 6))
        if kind == 0:  # one combination, one value or several
            rows = [(int(rng.integers(0, 60)), int(rng.integers(0, n_values)))] * n
            if n_values > 1 and rng.random() < 0.5:
                rows = [(rows[0][0], int(rng.integers(0, n_values))) for _ in range(n)]
        elif kind == 1:  # spread: every row its own combination and value
            rows = [(int(rng.integers(0, 60)), int(rng.integers(0, n_values)))
                    for _ in range(n)]
        elif kind == 2:  # spread with one value over all rows
            v = int(rng.integers(0, n_values))
            rows = [(int(rng.integers(0, 60)), v) for _ in range(n)]
        elif kind == 3 and patterns:  # exactly as an earlier spread person: a shared key
            rows = patterns[int(rng.integers(0, len(patterns)))]
        else:  # very many rows over many combinations (longer keys)
            rows = [(int(rng.integers(0, 60)), int(rng.integers(0, n_values)))
                    for _ in range(int(rng.integers(10, 30)))]
        if kind in (1, 2):
            patterns.append(rows)
        for c, v in rows:
            person.append(p)
            value.append(v)
            combo.append(c)
    order = rng.permutation(len(person))  # a person's rows are not next to each other
    return (np.asarray(person)[order], np.asarray(value)[order], np.asarray(combo)[order])


def _base(combo):
    """Rows grouped into base items in order of first appearance (as the classifier
    does)."""
    _, first, inverse = np.unique(combo, return_index=True, return_inverse=True)
    rank = np.empty(len(first), np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse], len(first)


def _recount(person, value, row_class, keep, n_classes, n_values):
    frame = pd.DataFrame({"p": person, "v": value, "c": row_class})[keep]
    persons = frame.groupby("c")["p"].nunique().reindex(range(n_classes), fill_value=0)
    pairs = frame.drop_duplicates(["c", "p", "v"])
    by_value = np.zeros((n_classes, n_values), np.int64)
    np.add.at(by_value, (pairs["c"].to_numpy(), pairs["v"].to_numpy()), 1)
    return persons.to_numpy(), by_value


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_values", [1, 4])
@pytest.mark.parametrize("subset", [False, True])
def test_roll_ups_count_each_person_once(seed, n_values, subset):
    rng = np.random.default_rng(seed)
    person, value, combo = _rows(rng, n_values=n_values)
    keep = rng.random(len(person)) < 0.7 if subset else np.ones(len(person), bool)
    row_item, n = _base(combo)
    rows = PersonRows(person, int(person.max()) + 1, value if n_values > 1 else None,
                      n_values, keep if subset else None)
    base = rows.rollup(row_item, n)
    assert len(base.key_value) > 5  # spread persons there are
    # the single pairs: (person, value) pairs whose counted rows are in one base item
    frame = pd.DataFrame({"p": person, "v": value, "i": row_item})[keep].drop_duplicates()
    alone = frame[frame.groupby(["p", "v"])["i"].transform("nunique") == 1]
    single = np.zeros((n, n_values), np.int64)
    np.add.at(single, (alone["i"].to_numpy(), alone["v"].to_numpy()), 1)
    got = base.single
    np.testing.assert_array_equal(got if n_values == 1 else got.dense(),
                                  single[:, 0] if n_values == 1 else single)
    for _ in range(3):  # chains of roll-ups from the base items, in random merges
        counts, row_class, size = base, row_item, n
        for _ in range(4):
            persons, by_value = _recount(person, value, row_class, keep, size, n_values)
            assert counts.n_items == size
            if n_values == 1:
                np.testing.assert_array_equal(counts.persons(), persons)
            np.testing.assert_array_equal(counts.by_value().dense(), by_value)
            new_size = max(1, size // int(rng.integers(2, 5)))
            group_of = rng.integers(0, new_size, size)
            group_of[rng.permutation(size)[:new_size]] = np.arange(new_size)  # none empty
            counts, row_class, size = counts.rollup(group_of, new_size), group_of[row_class], \
                new_size


def test_keys_are_shared_by_pairs_spread_the_same_way():
    """Two persons whose rows fall into the same base items with the same value are one
    key weighing two; a pair whose rows all fall into one item is no key."""
    person = np.array([0, 0, 1, 1, 2, 2, 3])
    item = np.array([0, 1, 0, 1, 0, 2, 2])
    counts = PersonRows(person, 4).rollup(item, 3)
    np.testing.assert_array_equal(counts.key_weight, [2, 1])
    np.testing.assert_array_equal(counts.single, [0, 0, 1])
    np.testing.assert_array_equal(counts.persons(), [3, 2, 2])
    np.testing.assert_array_equal(counts.rollup(np.array([0, 0, 1]), 2).persons(), [3, 2])
    # with values: person 0 holds value 1 in items 0 and 1 (a key) and value 0 in item 0
    # alone (single there), person 1 value 0 in items 0 and 1 (a key) and value 1 in item
    # 2 alone, person 2 value 1 in item 2
    values = np.array([1, 1, 0, 0, 0, 1, 1])
    person = np.array([0, 0, 0, 1, 1, 1, 2])
    item = np.array([0, 1, 0, 0, 1, 2, 2])
    counts = PersonRows(person, 3, values, 2).rollup(item, 3)
    np.testing.assert_array_equal(counts.key_value, [1, 0])
    np.testing.assert_array_equal(counts.single.dense(), [[1, 0], [0, 0], [0, 2]])
    np.testing.assert_array_equal(counts.by_value().dense(), [[2, 1], [1, 1], [0, 2]])


def test_keys_are_the_distinct_value_and_item_sets_of_spread_pairs():
    """Per key: a value and a set of base items no other key has, weighing the spread
    (person, value) pairs with exactly these (recounted with pandas; many pairs, so
    that the key table's slots collide)."""
    rng = np.random.default_rng(8)
    person = rng.integers(0, 20000, 60000)
    value = rng.integers(0, 3, len(person))
    item = rng.integers(0, 40, len(person))  # few items: many pairs share their sets
    counts = PersonRows(person, 20000, value, 3).rollup(item, 40)
    frame = pd.DataFrame({"p": person, "v": value, "i": item}).drop_duplicates()
    sets = frame.sort_values("i").groupby(["p", "v"])["i"].agg(tuple)
    spread = sets[sets.map(len) > 1].reset_index()
    want = spread.groupby(["v", "i"]).size()
    keys = counts.keys
    got = {(int(keys.value[k]), tuple(keys.base_items[keys.item[keys.ptr[k]:keys.ptr[k + 1]]]
                                      .tolist())): int(keys.weight[k])
           for k in range(len(keys))}
    assert len(got) == len(keys) == len(want) > 1000
    assert got == {(int(v), i): int(n) for (v, i), n in want.items()}


# --- whole jobs of spread persons --------------------------------------------------------
def _spread_visits(seed: int, patients: int = 500) -> pd.DataFrame:
    """Visits of which about half the patients move between combinations (another age
    or ZIP at each visit), some of them the same way as another patient."""
    from tests import person_data
    rng = np.random.default_rng(seed)
    frame = person_data.visits(patients=patients, seed=seed)
    moving = frame["patient_no"].isin(
        rng.choice(frame["patient_no"].unique(), patients // 2, replace=False))
    frame.loc[moving, "age"] = rng.integers(18, 90, int(moving.sum())).astype(str)
    zips = frame["zip"].unique()
    half = moving & (rng.random(len(frame)) < 0.5)
    frame.loc[half, "zip"] = rng.choice(zips, int(half.sum()))
    twins = frame[moving].copy()  # spread exactly as a moving patient
    twins = twins[twins["patient_no"].isin(twins["patient_no"].unique()[:40])]
    twins["patient_no"] = twins["patient_no"] + "b"
    twins["visit_no"] = (len(frame) + np.arange(len(twins))).astype(str)
    return pd.concat([frame, twins], ignore_index=True).sample(frac=1.0, random_state=seed)


MODELS = {
    "distinct": '[[privacy]]\nmodel = "distinct-l-diversity"\nattribute = "diagnosis"\n'
                'l = 2\n',
    "entropy": '[[privacy]]\nmodel = "entropy-l-diversity"\nattribute = "diagnosis"\n'
               'l = 2\n',
    "recursive": '[[privacy]]\nmodel = "recursive-cl-diversity"\nattribute = "diagnosis"\n'
                 'c = 3\nl = 2\n',
    "closeness": '[[privacy]]\nmodel = "t-closeness"\nattribute = "diagnosis"\nt = 0.3\n',
}


@pytest.mark.parametrize("model", list(MODELS))
def test_spread_persons_release_recounted_and_verified(tmp_path, model):
    from engine.cli import main
    from tests import person_data
    qis = list(person_data.QIS)
    frame = _spread_visits(seed=len(model))
    person_data.write_visits(tmp_path, frame)
    (tmp_path / "job.toml").write_text(
        person_data.job_text(k=3, limit=0.1, extra=MODELS[model]), encoding="utf-8")
    out, res = tmp_path / "out.csv", tmp_path / "res.json"
    assert main(["anonymize", str(tmp_path / "job.toml"), "--quiet", "--output", str(out),
                 "--result", str(res)]) == 0
    assert main(["verify", str(out), str(tmp_path / "job.toml")]) == 0
    released = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    data = pd.read_csv(tmp_path / "visits.csv", sep=";", dtype=str, keep_default_na=False)
    suppressed = (released[qis] == "*").all(axis=1).to_numpy()
    kept = released[qis].assign(patient=data["patient_no"].to_numpy(),
                                diagnosis=data["diagnosis"].to_numpy())[~suppressed]
    groups = kept.groupby(qis)
    assert groups["patient"].nunique().min() >= 3
    assert groups["diagnosis"].nunique().min() >= 2
    result = json.loads(res.read_text())
    assert result["person"]["suppressed_persons"] == data.loc[suppressed,
                                                              "patient_no"].nunique()
    assert int(suppressed.sum()) <= 0.1 * len(data)


def test_classes_of_spread_persons_match_a_recount(tmp_path):
    """Through the classifier (classes rolled up from whatever snapshot is cached, at
    random transformations): persons per class and persons per diagnosis equal a pandas
    recount on visits where half the patients move between combinations."""
    from engine.api import prepare
    from engine.privacy.base import PERSONS, class_sizes
    from engine.privacy.sensitive import sensitive_key
    from engine.project.job_file import load_job
    from tests import person_data
    frame = _spread_visits(seed=9)
    person_data.write_visits(tmp_path, frame)
    (tmp_path / "job.toml").write_text(person_data.job_text(extra=(
        '[[privacy]]\nmodel = "entropy-l-diversity"\nattribute = "diagnosis"\nl = 1.5\n')),
        encoding="utf-8")
    problem = prepare(None, load_job(tmp_path / "job.toml"))
    assert problem.classifier.base.aggregates[PERSONS].key_weight.max() > 1  # shared keys
    data = pd.read_csv(tmp_path / "visits.csv", sep=";", dtype=str, keep_default_na=False)
    codes = {v: i for i, v in enumerate(problem.table.column("diagnosis").dictionary)}
    rng = np.random.default_rng(2)
    lattice = problem.lattice
    for _ in range(25):
        levels = [int(rng.integers(lo, hi + 1))
                  for lo, hi in zip(lattice.min_levels, lattice.max_levels)]
        classes = problem.classifier.classify(levels)
        _, row_class = problem.classifier.classify_rows(levels)
        rows = data.assign(c=row_class)
        want = rows.groupby("c")["patient_no"].nunique()
        np.testing.assert_array_equal(class_sizes(classes)[want.index], want.to_numpy())
        dist = classes.aggregates[sensitive_key("diagnosis")].by_value().dense()
        pairs = rows.drop_duplicates(["c", "patient_no", "diagnosis"])
        expected = np.zeros_like(dist)
        np.add.at(expected, (pairs["c"].to_numpy(),
                             pairs["diagnosis"].map(codes).to_numpy()), 1)
        np.testing.assert_array_equal(dist, expected)
