"""Settings of the population searches, read from ``[transformation.genetic]``.

The genetic algorithm and KGEN share the table: each reads its own keys and
ignores the other's. Every key declares its kind and allowed range here, once;
``check_genetic_table`` checks the whole table when the job is loaded, so a bad
value is reported with its key and range before any search starts, and each
search reads its settings with ``from_dict``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields

from engine.errors import JobError

WHERE = "[transformation.genetic]"


def fraction(default: float):
    """A setting between 0 and 1."""
    return field(default=default, metadata={"kind": float, "low": 0.0, "high": 1.0})


def count(default: int | None, low: int):
    """A whole-number setting of at least ``low`` (None: the search decides)."""
    return field(default=default, metadata={"kind": int, "low": low, "high": None})


def _value(d: dict, name: str, kind: type, low, high):
    """``d[name]`` as ``kind``, or a ``JobError`` naming the key and its allowed range."""
    v = d[name]
    if v is None and kind is int:
        return None
    if kind is int:
        allowed = f"a whole number of at least {low}"
        ok = isinstance(v, int) or (isinstance(v, float) and v.is_integer())
    else:
        allowed = f"a number between {low:g} and {high:g}"
        ok = isinstance(v, (int, float))
    if isinstance(v, bool) or not ok or not low <= v <= (v if high is None else high):
        raise JobError(f"{WHERE} {name} = {v!r} must be {allowed}")
    return kind(v)


class _GeneticTable:
    """Reading and checking a settings dataclass from the shared table."""

    @classmethod
    def from_dict(cls, d: dict):
        if not isinstance(d, dict):
            raise JobError(f"{WHERE} must be a table, got {d!r}")
        unknown = set(d) - GENETIC_KEYS
        if unknown:
            raise JobError(f"{WHERE} has unknown key(s): {', '.join(sorted(unknown))}"
                           f" (known: {', '.join(sorted(GENETIC_KEYS))})")
        p = cls(**{f.name: _value(d, f.name, **f.metadata) for f in fields(cls) if f.name in d})
        p.check()
        return p

    def check(self) -> None:
        """Checks across settings (each one's own range is checked by ``from_dict``)."""


@dataclass(frozen=True)
class GeneticParameters(_GeneticTable):
    """The GA's settings (see ``engine.search.genetic``)."""

    elite_fraction: float = fraction(0.2)
    crossover_fraction: float = fraction(0.4)
    production_fraction: float = fraction(0.2)
    mutation_probability: float = fraction(0.05)
    immigration_fraction: float = fraction(0.2)
    immigration_interval: int = count(10, 1)
    subpopulation_size: int = count(50, 2)
    #: None: 50 when the job sets no time or step limit, else the limit decides
    iterations: int | None = count(None, 0)

    def check(self) -> None:
        if self.elite_fraction + self.crossover_fraction > 1.0:
            raise JobError(f"{WHERE} elite_fraction + crossover_fraction = "
                           f"{self.elite_fraction + self.crossover_fraction:g} must not exceed 1")


@dataclass(frozen=True)
class KgenParameters(_GeneticTable):
    """KGEN's settings (Table 6 of the paper; see ``engine.search.kgen``)."""

    population_size: int = count(100, 2)
    crossover_rate: float = fraction(0.9)
    mutation_rate: float = fraction(0.2)
    horizontal_mutation_rate: float = fraction(0.4)
    #: share of genes changed by a horizontal mutation (the paper's example: 50%)
    horizontal_mutation_fraction: float = fraction(0.5)
    tournament_size: int = count(2, 1)
    #: None: 5000 when the job sets no time or step limit, else the limit decides
    max_evaluations: int | None = count(None, 0)


#: every key ``[transformation.genetic]`` may hold (the GA's and KGEN's settings)
GENETIC_KEYS = frozenset(f.name for cls in (GeneticParameters, KgenParameters)
                         for f in fields(cls))


def check_genetic_table(d: dict) -> dict:
    """Check every key and value of the table (both searches' settings); return it."""
    GeneticParameters.from_dict(d)
    KgenParameters.from_dict(d)
    return d
