"""The privacy-model interface every model implements.

A model either judges each equivalence class on its own (``violating``:
k-anonymity, l-diversity, t-closeness, delta-presence, k-map...) or the
released table as a whole after suppression (``table_ok``: average risk,
population uniqueness...). Models ask for per-record vectors to be summed per
class during roll-up (``row_aggregates``), so class-level counts and
sensitive-value distributions are merged, never recounted from rows.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from engine.classes import Classes
from engine.data.table import EncodedTable
from engine.schema import Declared, read_table, write_table


@dataclass
class ModelContext:
    """What models may look at when they are bound to a job."""

    table: EncodedTable
    qis: list[str]
    hierarchies: dict = field(default_factory=dict)  # attribute -> Hierarchy
    subset: np.ndarray | None = None  # bool mask of research-subset rows
    population: dict | None = None
    models: list = field(default_factory=list)  # every model of the job
    #: each row's person code (``[data] person``, engine.persons), or None: a row is a
    #: person; ``n_persons`` codes
    persons: np.ndarray | None = None
    n_persons: int = 0
    data_types: dict = field(default_factory=dict)  # attribute -> its [attributes] data_type
    #: out of core, the persons the backend counted (``engine.kernel.person_tallies.
    #: PersonTallies``; ``persons`` is then None): the models count persons from it
    person_tallies: object = None

    @property
    def counts_persons(self) -> bool:
        """Whether the models count distinct persons (``[data] person``)."""
        return self.persons is not None or self.person_tallies is not None

    @property
    def n_rows(self) -> int:
        """Records of the data (a frequency table's rows stand for several)."""
        return self.table.n_records

    def count_individuals(self, rows: np.ndarray | None = None) -> int:
        """Individuals among the rows of the boolean mask ``rows`` (all when None): the
        distinct persons with ``[data] person``, else the records."""
        if self.person_tallies is not None:
            if rows is not None and not bool(np.asarray(rows, bool).all()):
                raise ValueError("the persons counted by a backend are counted over all "
                                 "the records")
            return int(self.person_tallies.n_persons)
        if self.persons is None:
            return self.table.count_records(rows)
        codes = self.persons if rows is None else self.persons[np.asarray(rows, bool)]
        return int(np.count_nonzero(np.bincount(codes, minlength=self.n_persons)))


#: ``Classes.aggregates`` keys of the distinct persons per class (``[data] person``,
#: engine.kernel.person_counts): among the released records (the research subset when a
#: model has one), and among all records (k-map's population without an estimator)
PERSONS = "persons"
PERSONS_ALL = "persons:all"


def class_sizes(classes: Classes, key: str = PERSONS) -> np.ndarray:
    """What the models count per class: distinct persons when the job names a person
    column (docs/reference/person-level-models.md), else released records (research-
    subset records when a model has a subset; all records for ``PERSONS_ALL``)."""
    persons = classes.aggregates.get(key)
    if persons is not None:
        return persons.persons()
    if key == PERSONS_ALL:
        return classes.counts
    return classes.aggregates.get("subset", classes.counts)


class PrivacyModel(Declared):
    """Base class of privacy models.

    A model declares its parameters (``params``, ``engine.schema.Param``), a human
    ``label`` and a one-line ``summary``; construction, ``from_dict`` and
    ``to_dict`` follow from them. A constructed model is a frozen specification:
    ``Problem`` binds a ``working_copy()`` of it to the data.
    """

    #: name in the job file's ``[[privacy]] model = ...``
    name: ClassVar[str] = ""
    table: ClassVar[str] = "[[privacy]]"
    #: a generalization of a transformation that fulfils the model fulfils it too ...
    monotonic_without_suppression: ClassVar[bool] = True
    #: ... and still does when violating classes are suppressed within a limit
    monotonic_with_suppression: ClassVar[bool] = False
    #: models on a research subset make N the subset size
    uses_subset: ClassVar[bool] = False
    #: counting distinct persons (``[data] person``) keeps the model monotonic under
    #: generalization (and suppression, where it is monotonic with records): a class's
    #: persons never shrink when classes merge, but a per-person distribution or a
    #: table-level figure may move either way when merged classes share persons
    monotonic_per_person: ClassVar[bool] = False
    #: the model is defined per person (docs/reference/person-level-models.md); the
    #: others are refused with ``[data] person``
    counts_persons: ClassVar[bool] = True

    @classmethod
    def from_dict(cls, d: dict, where: str | None = None) -> "PrivacyModel":
        """The model of one ``[[privacy]]`` table, read strictly (``where`` names it)."""
        return cls(**read_table(d, cls.params, where or cls.where(), ignore=("model",)))

    def bind(self, ctx: ModelContext) -> None:
        """Precompute from the data; called once before the search, on a working copy."""

    def row_aggregates(self, ctx: ModelContext) -> dict[str, np.ndarray]:
        """Per-record vectors/matrices to be summed per class."""
        return {}

    def violating(self, classes: Classes) -> np.ndarray | None:
        """Boolean mask of classes that violate the model (None: not class-based)."""
        return None

    def violating_and_floor(self, classes: Classes) -> tuple[np.ndarray | None,
                                                              np.ndarray | None]:
        """``violating(classes)`` and, per class, a lower bound of the records of the class
        that this model makes every specialization of the transformation suppress (the
        transformation itself included), or None when the model knows none. The optimal
        search sums the bound over the classes: above the suppression limit, the
        transformation and all its specializations are not anonymous."""
        return self.violating(classes), None

    def enforce(self, classes: Classes, counts: np.ndarray,
                suppressed: np.ndarray, metric=None) -> np.ndarray:
        """Classes to suppress so that the rest of the table fulfils a table-level model.

        ``suppressed`` flags the classes other models already suppress and
        ``counts`` holds each class's released records. Risk-based models
        suppress further classes here (the smallest first, as ARX does, classes
        of one size by their loss under ``metric``, the job's metric); the
        result must include ``suppressed``. Class-based models return it as is.
        """
        return suppressed

    def table_ok(self, classes: Classes, suppressed: np.ndarray) -> bool:
        """Whether the table, with the flagged classes suppressed, fulfils the model."""
        return True

    def minimal_class_size(self) -> int | None:
        """A class smaller than this always violates (for preprocessing), if known."""
        return None

    def implied_class_size(self) -> int:
        """Every class with fewer records than this violates the model, whatever it holds
        (1: no such size known). The optimal search prunes with it as with k-anonymity,
        which stays monotonic with suppression, even when this model does not."""
        return self.minimal_class_size() or 1

    def to_dict(self) -> dict:
        return {"model": self.name, **write_table(self.values, self.params)}

    def describe(self) -> str:
        return self.name
