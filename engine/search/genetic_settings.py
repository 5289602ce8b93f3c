"""Settings of the population searches, read from ``[transformation.genetic]``.

The genetic algorithm and KGEN share the table: each reads its own keys and
ignores the other's. Every key is declared here, once (``engine.schema``);
``check_genetic_table`` checks the whole table when the job is loaded, so a bad
value is reported with its key and range before any search starts, and each
search reads its settings with ``from_dict``.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from engine.schema import ParamError, dataclass_params, param_field, read_table, unknown_key_error

WHERE = "[transformation.genetic]"


def fraction(default: float, label: str, help: str):
    """A setting between 0 and 1."""
    return param_field("float", default, low=0.0, high=1.0, label=label, help=help)


def count(default: int | None, low: int, label: str, help: str, unit: str = ""):
    """A whole-number setting of at least ``low`` (None: the search decides)."""
    return param_field("int", default, low=low, label=label, help=help, unit=unit)


class _GeneticTable:
    """Reading and checking a settings dataclass from the shared table."""

    @classmethod
    def from_dict(cls, d: dict):
        if not isinstance(d, dict):
            raise ParamError(f"{WHERE} must be a table, got {d!r}")
        for key in d:
            if key not in GENETIC_KEYS:
                raise unknown_key_error(WHERE, key, sorted(GENETIC_KEYS), value=d[key])
        mine = {k: v for k, v in d.items() if k in {f.name for f in fields(cls)}}
        p = cls(**read_table(mine, dataclass_params(cls), WHERE))
        p.check()
        return p

    def check(self) -> None:
        """Checks across settings (each one's own range is checked by ``from_dict``)."""


@dataclass(frozen=True)
class GeneticParameters(_GeneticTable):
    """The GA's settings (see ``engine.search.genetic``)."""

    elite_fraction: float = fraction(0.2, "Elite fraction",
                                     "share of each generation kept unchanged")
    crossover_fraction: float = fraction(0.4, "Crossover fraction",
                                         "share of each generation bred by crossover")
    production_fraction: float = fraction(0.2, "Production fraction",
                                          "share of parents drawn from the other subpopulation")
    mutation_probability: float = fraction(0.05, "Mutation probability",
                                           "chance that a gene (a level) mutates")
    immigration_fraction: float = fraction(0.2, "Immigration fraction",
                                           "share of a subpopulation exchanged on immigration")
    immigration_interval: int = count(10, 1, "Immigration interval",
                                      "generations between two immigrations",
                                      unit="generations")
    subpopulation_size: int = count(50, 2, "Subpopulation size",
                                    "individuals in each of the two subpopulations")
    #: checks of the top-down search that seed the populations (0: ARX's start)
    top_down_start: int = count(150, 0, "Top-down start",
                                "transformations the top-down search checks first to seed "
                                "the populations (0: ARX's start, triangle pattern and "
                                "random individuals)", unit="transformations")
    #: None: 50 when the job sets no time or step limit, else the limit decides
    iterations: int | None = count(None, 0, "Iterations",
                                   "generations to breed (absent: 50, or until the "
                                   "time or step limit)", unit="generations")

    def check(self) -> None:
        if self.elite_fraction + self.crossover_fraction > 1.0:
            raise ParamError(f"{WHERE} elite_fraction + crossover_fraction = "
                           f"{self.elite_fraction + self.crossover_fraction:g} must not exceed 1")


@dataclass(frozen=True)
class KgenParameters(_GeneticTable):
    """KGEN's settings (Table 6 of the paper; see ``engine.search.kgen``)."""

    population_size: int = count(100, 2, "Population size", "individuals per generation")
    crossover_rate: float = fraction(0.9, "Crossover rate", "chance that two parents cross")
    mutation_rate: float = fraction(0.2, "Mutation rate", "chance that a child mutates")
    horizontal_mutation_rate: float = fraction(0.4, "Horizontal mutation rate",
                                               "share of mutations that change several genes")
    #: share of genes changed by a horizontal mutation (the paper's example: 50%)
    horizontal_mutation_fraction: float = fraction(0.5, "Horizontal mutation fraction",
                                                   "share of genes a horizontal mutation "
                                                   "changes")
    tournament_size: int = count(2, 1, "Tournament size",
                                 "individuals competing for each parent's place")
    #: None: 5000 when the job sets no time or step limit, else the limit decides
    max_evaluations: int | None = count(None, 0, "Evaluations",
                                        "transformations to evaluate (absent: 5000, or "
                                        "until the time or step limit)")


#: every key ``[transformation.genetic]`` may hold (the GA's and KGEN's settings)
GENETIC_PARAMS = dataclass_params(GeneticParameters) + dataclass_params(KgenParameters)
GENETIC_KEYS = frozenset(p.name for p in GENETIC_PARAMS)


def check_genetic_table(d: dict) -> dict:
    """Check every key and value of the table (both searches' settings); return the
    checked values of the keys it holds."""
    if not isinstance(d, dict):
        raise ParamError(f"{WHERE} must be a table, got {d!r}")
    GeneticParameters.from_dict(d)
    KgenParameters.from_dict(d)
    params = {p.name: p for p in GENETIC_PARAMS}
    return {k: params[k].check(v, WHERE) for k, v in d.items()}
