"""A job bound to its data: encoded hierarchies, lattice, models, metric, classifier.

``Problem.evaluate(levels)`` is the one operation every search uses: classify
the transformation, flag violating classes, decide anonymity under the
suppression limit and compute the information loss.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.classes import Classes, Classifier
from engine.config import IDENTIFYING, QUASI_IDENTIFYING, Job
from engine.data.table import EncodedTable
from engine.errors import DataError, HierarchyError, JobError
from engine.hierarchy.model import Hierarchy
from engine.hierarchy.encoded import EncodedHierarchy
from engine.hierarchy.from_spec import bind_built
from engine.kernel.reduce import suppressed_and_released
from engine.kernel.blas import one_blas_thread
from engine.lattice import Lattice
from engine.kernel.person_counts import PersonRows
from engine.persons import KEY as PERSON_KEY
from engine.persons import check_person_models, check_person_role, person_codes
from engine.metrics import Loss, MetricContext
from engine.metrics.base import normalized_weights
from engine.privacy.base import (PERSONS, PERSONS_ALL, ModelContext, PrivacyModel,
                                 class_sizes)
from engine.privacy.sensitive import check_sensitive_roles
from engine.transform.perturbation import check_sdc_methods
from engine.subset import resolve_subset
from engine.transform.coding import RULES, check_coded_values, rule_hierarchy
from engine.transform.microaggregation import check_values as check_micro_values
from engine.transform.microaggregation import (is_aggregated_only, micro_dimensions, micro_key,
                                               micro_specs)


@dataclass(frozen=True)
class Evaluation:
    """The outcome of checking one transformation."""

    levels: tuple[int, ...]
    anonymous: bool
    loss: Loss
    suppressed_records: int
    n_classes: int
    #: whether the job's monotonic class-based models alone (``Problem.pruning_models``,
    #: and classes smaller than ``Problem.pruning_k``) keep their violating records
    #: within the suppression limit; None without such models
    monotonic_part_ok: bool | None = None
    #: whether the records the models make every specialization suppress (classes
    #: smaller than ``Problem.pruning_k``, ``PrivacyModel.violating_and_floor``) exceed
    #: the limit: then this transformation and all its specializations are not
    #: anonymous; None without floors (``Problem.floors``)
    specializations_fail: bool | None = None


def missing_columns_message(missing: list[str], names: list[str], delimiter: str | None) -> str:
    """Job attributes absent from the data. A table of one column was most likely read
    with the wrong delimiter (or is no CSV at all): its header is not echoed."""
    first = f"attribute '{missing[0]}' in the job is not a column of the data"
    more = f" (nor {len(missing) - 1} other attribute(s))" if len(missing) > 1 else ""
    if len(names) == 1:
        from engine.data.csv_import import delimiter_guess
        guess = delimiter_guess(names[0], delimiter)
        hint = (f"; is the delimiter {guess!r}? (the job's [data] delimiter is {delimiter!r})"
                if guess else "; is it a delimited text file with the job's delimiter "
                f"{delimiter!r}?")
        return f"{first}{more}: the file has one column{hint}"
    shown = [n if len(n) <= 40 else n[:37] + "..." for n in names[:20]]
    tail = f", ... ({len(names)} in all)" if len(names) > 20 else ""
    return f"{first}{more} (columns: {', '.join(shown)}{tail})"


class Problem:
    """Everything a search needs, prepared once from a table and a job."""

    #: ``time.perf_counter()`` time by which a time-limited search must have returned,
    #: or None (the limit then counts from the search's start); ``engine.api.anonymize``
    #: sets it so that the job's time limit also covers preparing and the output
    deadline: float | None = None

    def __init__(self, table: EncodedTable, job: Job):
        with one_blas_thread():  # the metric's preparation: many small dot products
            self._prepare(table, job)

    def _prepare(self, table: EncodedTable, job: Job) -> None:
        self.table = table
        self.job = job
        #: the backend holding the records when ``table`` is its frequency table
        #: (``engine.backends``): it writes the release; None in memory
        self.backend = None
        #: out of core, the persons the backend counted itself (no row per person:
        #: ``engine.kernel.person_tallies``), else None
        self.person_tallies = getattr(table, "person_tallies", None)
        #: each row's person (``[data] person``, engine.persons), or None: a row is a
        #: person, or the backend counted the persons (``person_tallies``)
        self.person_codes = person_codes(job, table) if self.person_tallies is None else None
        if self.person_tallies is not None:
            check_person_role(job)
        missing = [name for name in job.attributes if name not in table.source_names]
        if missing:
            raise JobError(missing_columns_message(missing, table.source_names,
                                                   job.data.delimiter))
        if table.n_rows == 0:
            raise DataError("the data has no records (a header alone?)")
        # hierarchies a job names by their builder, built from the columns' values
        job = self.job = bind_built(job, table)
        check_person_models(job)
        #: whether the models count distinct persons, and how many person codes there are
        tallies = self.person_tallies
        self.counts_persons = self.person_codes is not None or tallies is not None
        self.n_persons = (tallies.n_persons if tallies is not None
                          else len(table.column(job.person).dictionary) if self.counts_persons
                          else 0)
        #: whether a person has several records: else every class holds as many persons
        #: as records, and the models count records (the same figures, at no cost)
        self.persons_repeat = self.counts_persons and (
            tallies.repeat if tallies is not None else
            table.weights is not None and bool((table.weights > 1).any())
            or int(np.bincount(self.person_codes, minlength=self.n_persons).max(
                initial=0)) > 1)
        persons = self.person_codes if self.persons_repeat else None
        # microaggregated QIs without clustering are not generalized: the classes are
        # formed by the others and their values aggregated per class (engine/transform)
        self.micro = micro_specs(job)
        check_micro_values(self.micro, table)
        check_coded_values(job, table)
        self.qis = [n for n in table.names
                    if n in job.attributes and job.attributes[n].type == QUASI_IDENTIFYING
                    and not is_aggregated_only(job, n)]
        #: every quasi-identifier as released, microaggregated ones included (they are
        #: not generalized, but an attacker still links on them): for risk counts
        self.released_qis = self.qis + [m.attribute for m in self.micro
                                        if m.attribute not in self.qis]
        self.identifying = [n for n in table.source_names
                            if n in job.attributes and job.attributes[n].type == IDENTIFYING]
        check_sdc_methods(job)  # a job built in code or the app, not read from a file
        self.hierarchies = [self._encode_hierarchy(n) for n in self.qis]
        self.lattice = self._lattice()
        subset = resolve_subset(job, table)
        # the job is a specification: the problem binds its own copies of the models and
        # the metric, so that a job may run again (or twice at once) unchanged
        check_sensitive_roles(job.privacy, job.attributes)
        self.models = [m.working_copy() for m in job.privacy]
        self.model_context = ModelContext(
            table, self.qis,
            {n: a.hierarchy for n, a in job.attributes.items() if a.hierarchy is not None},
            subset, job.population, list(self.models), persons, self.n_persons,
            {n: a.data_type for n, a in job.attributes.items() if a.data_type},
            person_tallies=tallies if self.persons_repeat else None)
        if not self.models:
            raise JobError("the job has no privacy model: add at least one [[privacy]] table")
        row_aggs: dict[str, np.ndarray] = {}
        for m in self.models:
            m.bind(self.model_context)
            row_aggs.update(m.row_aggregates(self.model_context))
        # a model may draw the released records itself (differential privacy's sample)
        subset = self.model_context.subset
        self.uses_subset = any(m.uses_subset for m in self.models)
        if self.uses_subset:
            if subset is None:
                raise JobError("a model needs a research subset: add a [subset] table")
            row_aggs["subset"] = subset.astype(np.int64)
        if self.persons_repeat and tallies is not None:  # counted by the backend
            if self.uses_subset:
                raise JobError(f"{PERSON_KEY} out of core with a research subset: the "
                               f"persons are counted in memory (internal: not counted so)")
            row_aggs[PERSONS] = tallies.of(None)
        elif self.persons_repeat:
            # distinct persons per class among the released records (and among all)
            row_aggs[PERSONS] = PersonRows(self.person_codes, self.n_persons,
                                           keep=subset if self.uses_subset else None)
            if self.uses_subset:
                row_aggs[PERSONS_ALL] = PersonRows(self.person_codes, self.n_persons)
        self.metric = job.metric.working_copy()
        row_aggs.update(self.metric.attach(table, self.qis,
                                           subset if self.uses_subset else None))
        measured = micro_dimensions(self.metric, self.micro, table)
        row_aggs.update({micro_key(n): agg for n, _, agg in measured})
        codes = ([table.column(n).codes for n in self.qis]
                 if self.qis else np.zeros((table.n_rows, 0), np.int32))
        self.classifier = Classifier(self.hierarchies, codes, row_aggs,
                                     row_weights=table.weights)
        self.n_records = table.count_records(subset if self.uses_subset else None)
        limit = job.transformation.suppression_limit
        if not 0.0 <= limit <= 1.0:
            raise JobError(f"suppression_limit must be a fraction between 0 and 1, got {limit}")
        if any(getattr(m, "suppresses_freely", False) for m in self.models):
            limit = 1.0  # SafePub suppresses every small class of its sample, as ARX does
        self.max_suppressed = int(math.floor(limit * self.n_records + 1e-9))
        value_rows = subset if self.uses_subset else None
        # records per value: from the distinct rows when every record counts
        value_counts = [table.value_counts(n, value_rows) if value_rows is not None
                        else self.classifier.value_counts(j, len(table.column(n).dictionary))
                        for j, n in enumerate(self.qis)]
        weights = {n: a.weight for n, a in job.attributes.items() if a.weight is not None}
        self.metric.bind(MetricContext(
            self.n_records, self.hierarchies, value_counts,
            normalized_weights(self.qis + [n for n, _, _ in measured], weights), limit,
            self.record_counts(self.classifier.base),
            [(micro_key(n), size) for n, size, _ in measured]))
        tr = job.transformation
        self.models_monotonic = tr.practical_monotonicity or all(
            _monotonic(m, limit, self.persons_repeat) for m in self.models)
        self.metric_monotonic = self.metric.is_monotonic(limit)
        # When the job as a whole is not monotonic, its monotonic class-based models
        # still are: where their violating records alone exceed the limit, so do the
        # job's (its suppressed classes include theirs) at this transformation and at
        # every specialization, which a search may tag not anonymous unchecked.
        # Likewise classes smaller than a model's implied class size always violate it
        # (t-closeness 0.2 implies 5-anonymity on Adult's occupation, say).
        self.pruning_models = [] if self.models_monotonic else [
            m for m in self.models if _prunes_alone(m, limit, self.persons_repeat)]
        self.pruning_k = 1 if self.models_monotonic else max(
            (m.implied_class_size() for m in self.models
             if type(m).violating is not PrivacyModel.violating), default=1)
        # ... and records every specialization suppresses may be bounded per class
        # (``Evaluation.specializations_fail``)
        # (a model's own floors are shares of its records: not of persons, who may fall
        # into several parts of a class)
        self.model_floors = not self.persons_repeat
        #: whether a table-level model may suppress further classes (``enforce``)
        self.enforcing = any(type(m).enforce is not PrivacyModel.enforce for m in self.models)
        self.floors = not self.models_monotonic and (self.pruning_k > 1 or (
            self.model_floors and any(
                type(m).violating_and_floor is not PrivacyModel.violating_and_floor
                for m in self.models)))

    # --- set-up helpers ---------------------------------------------------------
    def _encode_hierarchy(self, name: str) -> EncodedHierarchy:
        a = self.job.attributes[name]
        column = self.table.column(name)
        if a.transformation in RULES:
            h, _ = rule_hierarchy(a, name, column.dictionary,
                                  self.job.transformation.suppression_string)
            return EncodedHierarchy.build(h, column.dictionary, name)
        if a.hierarchy is None and self.job.transformation.suppression == "cells":
            # cell suppression alone protects a quasi-identifier without a hierarchy
            h = Hierarchy.identity([str(v) for v in column.dictionary], name)
            return EncodedHierarchy.build(h, column.dictionary, name)
        if a.hierarchy is None:
            raise HierarchyError(f"quasi-identifier '{name}' has no hierarchy: load one or "
                                 f"build one with a wizard")
        try:
            return EncodedHierarchy.build(a.hierarchy, column.dictionary, name)
        except HierarchyError:  # values not covered: named with their data rows
            try:
                a.hierarchy.check_covers(column.dictionary, column.first_rows())
            except HierarchyError as e:
                raise HierarchyError(f"{e} (column '{name}')") from None
            raise

    def _lattice(self) -> Lattice:
        lows, highs = [], []
        for name, h in zip(self.qis, self.hierarchies):
            a = self.job.attributes[name]
            lo = 0 if a.min_level is None else int(a.min_level)
            hi = h.height if a.max_level is None else int(a.max_level)
            if a.transformation in RULES:  # a rule is one fixed transformation
                lo = hi = h.height
            if not 0 <= lo <= hi <= h.height:
                raise JobError(f"attribute '{name}': min_level {lo} / max_level {hi} must "
                               f"satisfy 0 <= min <= max <= {h.height} (hierarchy height)")
            lows.append(lo)
            highs.append(hi)
        return Lattice(tuple(self.qis), tuple(lows), tuple(highs))

    # --- evaluation ---------------------------------------------------------------
    def record_counts(self, classes: Classes) -> np.ndarray:
        """Records per class that count for suppression and metrics (subset records when
        a model works on a research subset)."""
        return classes.aggregates["subset"] if self.uses_subset else classes.counts

    def violating(self, classes: Classes) -> np.ndarray:
        return self._violating(classes)[0]

    def person_figures(self, levels, base_suppressed: np.ndarray | None = None) -> dict | None:
        """With ``[data] person``: the person column, the persons in the data, and the
        persons affected by suppression at ``levels`` (distinct persons of the suppressed
        records: the limit itself stays in records); None without it.
        ``base_suppressed`` (per base item) spares the roll-up when known."""
        if not self.counts_persons:
            return None
        if self.person_codes is None:
            return self._counted_person_figures(levels, base_suppressed)
        if base_suppressed is None:
            classes, base_to_class = self.classifier.rollup(
                self.classifier.base, np.asarray(levels, dtype=np.int64))
            base_suppressed = np.asarray(self.violating(classes), bool)[base_to_class]
        rows = base_suppressed[self.classifier.row_to_base]
        if self.uses_subset:
            rows = rows & self.model_context.subset
        everyone = np.bincount(self.person_codes, minlength=self.n_persons) > 0
        hit = np.bincount(self.person_codes[rows], minlength=self.n_persons) > 0
        return {"column": self.job.person, "persons": int(everyone.sum()),
                "suppressed_persons": int(hit.sum())}

    def _counted_person_figures(self, levels, base_suppressed) -> dict:
        """``person_figures`` from the persons the backend counted: a single person is
        hit when their one base item is suppressed, the persons of a spread key when
        one of its items is (each counted once)."""
        base = self.classifier.base
        if base_suppressed is None:
            classes, base_to_class = self.classifier.rollup(
                base, np.asarray(levels, dtype=np.int64))
            base_suppressed = np.asarray(self.violating(classes), bool)[base_to_class]
        base_suppressed = np.asarray(base_suppressed, bool)
        if not self.persons_repeat:  # a person is a record
            hit = int(base.counts[base_suppressed].sum())
        else:
            counts = base.aggregates[PERSONS]
            keys = counts.keys  # each key's base items, numbered among the keyed ones
            entry_hit = base_suppressed[counts.where[keys.item]]
            key_of_entry = np.repeat(np.arange(len(keys)), np.diff(keys.ptr))
            hit = int(np.asarray(counts.single)[base_suppressed].sum()
                      + keys.weight[np.unique(key_of_entry[entry_hit])].sum())
        return {"column": self.job.person, "persons": int(self.n_persons),
                "suppressed_persons": hit}

    def _violating(self, classes: Classes) -> tuple[np.ndarray, np.ndarray | None,
                                                    np.ndarray | None]:
        """Classes to suppress, those the pruning models alone flag (or None), and per
        class the records every specialization suppresses (None if the job is
        monotonic)."""
        mask = np.zeros(classes.n_classes, dtype=bool)
        counts = self.record_counts(classes)
        part = floor = None
        if self.pruning_k > 1:
            part = counts < self.pruning_k
        elif self.pruning_models:
            part = np.zeros(classes.n_classes, dtype=bool)
        if self.floors:
            floor = np.where(counts < self.pruning_k, counts, 0).astype(np.float64)
        for m in self.models:
            if floor is None or not self.model_floors:
                v = m.violating(classes)
            else:
                v, f = m.violating_and_floor(classes)
                if f is not None:
                    np.maximum(floor, f, out=floor)
            if v is not None:
                mask |= v
                if part is not None and any(m is p for p in self.pruning_models):
                    part |= v
        # table-level (risk-based) models may suppress more classes: by their persons
        sizes = class_sizes(classes) if self.persons_repeat and self.enforcing else counts
        for m in self.models:
            mask = m.enforce(classes, sizes, mask, self.metric)
        return mask, part, floor

    def evaluate(self, levels, cache: bool = True) -> Evaluation:
        classes = self.classifier.classify(levels, cache=cache)
        return self.evaluate_classes(classes)

    def evaluate_classes(self, classes: Classes) -> Evaluation:
        violating, part, floor = self._violating(classes)
        counts = self.record_counts(classes)
        suppressed, released = suppressed_and_released(counts, violating)
        suppressed = int(suppressed)
        anonymous = suppressed <= self.max_suppressed and all(
            m.table_ok(classes, violating) for m in self.models)
        part_ok = None
        if part is not None:
            # ``part`` is a subset of ``violating``: an anonymous transformation passes
            part_ok = anonymous or int(counts[part].sum()) <= self.max_suppressed
        below = None
        if floor is not None:
            # the floors sum records (integers) with margins: a relative 1e-9 more
            total = float(floor.sum())
            below = not anonymous and total > self.max_suppressed + 1e-9 * (1.0 + total)
        loss = self.metric.evaluate(classes, violating, counts)
        return Evaluation(tuple(classes.levels.tolist()), anonymous, loss, suppressed,
                          int(released), part_ok, below)


def _monotonic(model: PrivacyModel, limit: float, persons: bool) -> bool:
    """Whether a model is monotonic under the job's suppression limit (counting persons
    when ``persons``: ``PrivacyModel.monotonic_per_person``)."""
    if persons and not model.monotonic_per_person:
        return False
    return (model.monotonic_with_suppression if limit > 0
            else model.monotonic_without_suppression)


def _prunes_alone(model: PrivacyModel, limit: float, persons: bool = False) -> bool:
    """Whether a model is monotonic under the job's limit and judged class by class only:
    its violating records exceeding the limit then fail every specialization too."""
    monotonic = _monotonic(model, limit, persons)
    cls = type(model)
    return (monotonic and cls.violating is not PrivacyModel.violating
            and cls.enforce is PrivacyModel.enforce and cls.table_ok is PrivacyModel.table_ok)
