"""Independent verification of an exported table against a job's models.

Nothing here uses the engine's search path, directly or through another module
(tests/test_import_contracts.py: test_the_verifier_is_independent): the exported
file is read with plain pandas, chunk by chunk, and its equivalence classes are
recounted from the released values by the verifier's own rooms (``engine.verifier``:
counts, model checks, value order, estimators, the research subset and population
from the input), so a bug in the search, the roll-up or a model cannot hide a
privacy violation. What is shared on purpose is listed in ``engine.verifier``. Memory grows with
the number of classes (times the distinct values of sensitive attributes), not
with the number of rows. A large CSV file is read by Arrow in blocks instead and
its identical rows grouped on integer codes first (``engine.data.csv_distinct``):
the same counts, so the same report, in a fraction of the time; a file of two pieces
or more is cut into pieces read and grouped on every core (``engine.verifier.csv_rows``),
with the command's identifier scan in the same reading.

How a file is read:

- each quasi-identifier's generalization level is inferred from its labels (the
  lowest level of the job's hierarchy holding every value; a column holding
  nothing but ``*`` is at the lowest level whose labels include ``*``);
- rows whose quasi-identifiers are all ``*`` are suppressed records, unless ``*``
  is a label of every quasi-identifier's level (the top of ARX-style hierarchies):
  then they are read as one equivalence class, or, if that class violates a
  model, as suppressed records (both are the same released table);
- with a research subset (``[subset]``, for the models that count it) the release
  holds the subset's records only (in input order): the verifier resolves the
  subset on the input itself (`engine.verifier.source`), generalizes the input's
  quasi-identifiers to the release's levels, and requires every released class to
  hold exactly the subset's records of that class and the file exactly the subset's
  number of records (a record outside the subset in the file is a violation); the
  population a class stands for (δ-presence, k-map) is counted on the input;
- under differential privacy only SafePub's random sample is released, and the
  records left out of it are written suppressed: classes are checked without the
  sample, and the suppression limit does not apply (the model suppresses freely).

A release written as several files (Spark's folder of part files, a glob) is read
by DuckDB file after file in name order (`verify_parts`), streamed in batches into
the same count: DuckDB only parses the files, the recount is this module's.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.data import csv_arrow
from engine.data.files import is_glob
from engine.errors import DataError
from engine.markers import SUPPRESSED, suppression_marker
from engine.verifier import job as spec
from engine.verifier.formula_cells import unquote_array, unquote_frame
from engine.verifier.checks import CHECKS
from engine.verifier.cells import cells_job, treated_records, wildcard_violations
from engine.verifier.counts import CountAccumulator, ReleasedCounts

if TYPE_CHECKING:
    import pandas as pd

    from engine.config import Job

CHUNK_ROWS = 250_000
#: CSV files this big or bigger are read by Arrow and counted on codes (verify_file),
#: from the size the engine's input reader turns to Arrow
FAST_BYTES = csv_arrow.MIN_BYTES


@dataclass
class VerifyReport:
    ok: bool
    records: int
    suppressed_records: int
    classes: int
    min_class_size: int
    levels: dict[str, int | None] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"ok": self.ok, "records": self.records,
                "suppressed_records": self.suppressed_records, "classes": self.classes,
                "min_class_size": self.min_class_size, "levels": self.levels,
                "violations": self.violations}


# --- what the job says ----------------------------------------------------------------
_qis = spec.qis
_sensitive = spec.sensitive
_subset_models = spec.subset_job
_limit_applies = spec.limit_applies
_pseudonymized = spec.pseudonymized


def _marker(job: Job) -> str:
    """The string suppressed quasi-identifiers are written as."""
    return suppression_marker(job)


def looks_pseudonymized(values, pseudonym) -> bool:
    """Whether released values have the pseudonym method's form (hex of ``length``, or
    masked after ``keep`` characters): what can be checked without the key."""
    for v in values:
        v = str(v)
        if v == "":
            continue
        if pseudonym.method == "mask":
            if set(v[pseudonym.keep:]) - {pseudonym.mask_char}:
                return False
        elif len(v) != pseudonym.length or set(v) - set("0123456789abcdef"):
            return False
    return True


# --- levels -------------------------------------------------------------------------------
def _level(values: set[str], hierarchy, marker: str = SUPPRESSED,
           marker_is_label: bool = False) -> int | None:
    """The lowest level whose labels hold every value (None: none does); for a column
    of the suppression marker alone, the lowest level with that label. With
    ``marker_is_label`` (the marker stands in records that are not suppressed, as a
    hierarchy that hides rare values with ``*`` below its top writes it) the level's
    labels must hold the marker too."""
    if hierarchy is None:
        return None
    real = values - {marker}
    if marker_is_label:
        real = real | {marker}
    for level in range(hierarchy.levels):
        labels = set(hierarchy.level_labels(level))
        if (real <= labels) if real else (marker in labels):
            return level
    return None


# --- counting -----------------------------------------------------------------------------
def count_released(chunks: Iterable[tuple], qis: list[str],
                   sensitive: list[str], job: Job) -> tuple[CountAccumulator, list[str]]:
    """Add every chunk (string columns, research-subset mask or None, optionally the
    records each row stands for) to one
    accumulator: the single place a released table's classes are recounted (another
    reader, e.g. a database, can feed it its own chunks). Returns it with the problems
    met putting back values the export removed."""
    acc = CountAccumulator(qis, sensitive, _marker(job))
    acc.track_suppressed = bool(_removed_values(job))
    acc.persons = spec.person(job) is not None  # the chunks carry each row's person
    for chunk, mask, *weights in chunks:
        if isinstance(chunk, dict):  # a reader's distinct rows (column arrays), weighted
            acc.add_distinct(chunk, *weights, in_subset=mask)
        else:
            acc.add(chunk, mask, *weights)
    return acc, restore_removed(acc, job)


def judge(acc: CountAccumulator, job: Job, columns: list[str], has_subset: bool,
          not_pseudonyms: frozenset = frozenset(), subset_mask=None,
          input_frame=None) -> VerifyReport:
    """Check the counted table against the job's models and suppression limit (with a
    research subset, against the subset's classes counted on the input:
    `_subset_classes`; ``subset_mask`` gives the subset as a mask of the input's rows
    instead of resolving it; ``input_frame``: the input held in memory instead of the
    job's data file)."""
    qis = _qis(job)
    violations = []
    for n, a in job.attributes.items():
        if a.type == spec.IDENTIFYING and n in columns:
            pseudonym = getattr(a, "pseudonym", None)
            if pseudonym is None:
                violations.append(f"identifying attribute '{n}' is present in the output")
            elif n in not_pseudonyms:
                violations.append(f"identifying attribute '{n}' holds values that are not "
                                  f"{pseudonym.method} pseudonyms")
    missing = [q for q in qis if q not in columns] + [
        a for a in _sensitive(job) if a not in columns]
    if missing:
        violations.append(f"column(s) of the job missing from the output: {', '.join(missing)}")
        return VerifyReport(False, acc.rows, 0, 0, 0, {}, violations)
    from engine.verifier.columns import check_column, column_kind, local_recoding
    marker = acc.marker
    levels: dict[str, int | None] = {}
    star_label = []
    special = [q for q in qis if column_kind(job, q) != "generalized" or local_recoding(job)]
    cells = cells_job(job)  # sdcMicro's local suppression: engine/verifier/cells.py
    label_columns: set[int] = set()
    for q in qis:
        if q in special:  # microaggregated, coded or locally recoded: checked below
            levels[q] = None
            star_label.append(False)
            continue
        h = job.attributes[q].hierarchy
        lvl = _level(acc.values[q], h, marker,  # cells: the marker is a wildcard
                     marker_is_label=acc.star_counts[q] > acc.all_star_rows and not cells)
        levels[q] = lvl
        if h is not None and lvl is None:
            violations.append(f"column '{q}' holds values that are not labels of one "
                              f"hierarchy level (not a global recoding)")
        is_label = lvl is not None and marker in h.level_labels(lvl)
        star_label.append(is_label or (
            h is not None and _level(acc.values[q], h, marker, marker_is_label=True)
            is not None))  # the all-marker rows may be labels of a level that has it
        if is_label:
            label_columns.add(qis.index(q))
        if not is_label and acc.star_counts[q] > acc.all_star_rows and not cells:
            violations.append(f"column '{q}' holds '{marker}' in "
                              f"{acc.star_counts[q] - acc.all_star_rows} record(s) that are "
                              f"not suppressed")
    context = {"hierarchies": {n: a.hierarchy for n, a in job.attributes.items()
                               if a.hierarchy is not None},
               "population_size": spec.population_size(job), "columns": tuple(columns),
               "data_types": spec.data_types(job)}
    source = None
    if has_subset:
        source, problems = _subset_classes(acc, job, qis, special, levels, subset_mask,
                                           input_frame)
        violations += problems
    ambiguous = bool(qis) and all(star_label) and not cells
    context["label_columns"] = label_columns
    counts, n_sup, found = _judge_counts(acc, job, has_subset, context,
                                         not ambiguous and not cells, source)
    if ambiguous and found:  # the all-* rows may as well be suppressed records
        alt = _judge_counts(acc, job, has_subset, context, True, source)
        if not alt[2]:
            counts, n_sup, found = alt
    for q in special:  # the columns' own rules first, then the models
        values = acc.values[q] - ({marker} if acc.star_counts[q] <= acc.all_star_rows
                                  else set())
        violations += check_column(job, q, qis, values, counts.population, marker) or []
    violations += found
    sizes = list(counts.sizes.values())
    return VerifyReport(not violations, acc.rows, n_sup, len(sizes),
                        min(sizes) if sizes else 0, levels, violations)


def _subset_classes(acc: CountAccumulator, job: Job, qis: list[str], special: list[str],
                    levels: dict, subset_mask=None, input_frame=None):
    """The research subset's classes on the input at the release's levels (None when
    they cannot be counted) and the problems found: the release holding other than the
    subset's records."""
    from engine.verifier.source import InputSubset, input_classes
    if special:
        return None, [f"a research subset's release with quasi-identifiers that are not "
                      f"one hierarchy level ({', '.join(special)}) cannot be checked "
                      f"against the input"]
    unknown = [q for q in qis if levels[q] is None]
    if unknown and acc.rows > acc.all_star_rows:
        return None, []  # reported above: values of no one level
    maps = {}
    for q in qis:
        h, lvl = job.attributes[q].hierarchy, levels[q]
        maps[q] = ({r[0]: acc.marker for r in h.rows} if lvl is None
                   else {r[0]: r[lvl] for r in h.rows})
    subset = InputSubset(job)
    if subset_mask is not None:
        subset = _GivenSubset(np.asarray(subset_mask, dtype=bool))
    found = input_classes(job, subset, qis, maps, data=input_frame,
                          person=spec.person(job))
    problems = []
    if found.outside:
        problems.append(f"the research subset names {found.outside} row(s) beyond the "
                        f"{found.rows} rows of the input")
    for q, values in found.unknown.items():
        problems.append(f"the input's column '{q}' holds values its hierarchy does not "
                        f"have: {sorted(values)[:3]}")
    if acc.rows != found.subset_rows:
        problems.append(f"the release holds {acc.rows} records, the research subset "
                        f"{found.subset_rows}: a subset job releases the subset's records "
                        f"only")
    return found, problems


class _GivenSubset:
    """A research subset given as a mask of the input's rows (`verify_frame`)."""

    how = "mask"

    def __init__(self, mask: np.ndarray):
        self._mask = mask

    def columns(self) -> list[str]:
        return []

    def start(self, n_input: int) -> None:
        pass

    def outside(self, n_input: int) -> int:
        return 0 if len(self._mask) == n_input else abs(len(self._mask) - n_input)

    def mask(self, chunk, start: int) -> np.ndarray:
        out = np.zeros(len(chunk), dtype=bool)
        part = self._mask[start:start + len(chunk)]
        out[:len(part)] = part
        return out


def _judge_counts(acc: CountAccumulator, job: Job, has_subset: bool, context: dict,
                  suppressed: bool, source=None) -> tuple[ReleasedCounts, int, list[str]]:
    context = dict(context)
    label_columns = context.pop("label_columns", set())
    counts = acc.counts(suppressed_class=suppressed, has_subset=has_subset, **context)
    found = []
    if source is not None:  # every released class: the subset's records of it, no other
        bad = [(k, n, source.in_subset.get(k, 0)) for k, n in counts.sizes.items()
               if n != source.in_subset.get(k, 0)]
        if bad:
            shown = ", ".join(f"({', '.join(map(str, k))}) {n} released, {m} in the subset"
                              for k, n, m in bad[:3])
            found.append(f"{len(bad)} released class(es) do not hold the research subset's "
                         f"records of that class: {shown}")
        counts.population = {k: source.population.get(k, 0) for k in counts.sizes}
        counts.classes_without_subset = sum(1 for k, n in source.population.items()
                                            if n and not source.in_subset.get(k, 0))
        counts.minimal_class_size = any(spec.has_minimal_class_size(m) for m in job.privacy)
    elif has_subset:
        counts.population = dict(counts.sizes)  # unknown: the release's own records
    n_sup = 0
    if suppressed:
        n_sup = acc.all_star_subset_rows if has_subset else acc.all_star_rows
    cells = cells_job(job)
    if cells:  # the limit counts the records with suppressed cells
        n_sup = treated_records(counts.sizes, acc.marker, label_columns)
    if _limit_applies(job):
        n = counts.n_records
        limit = job.transformation.suppression_limit
        allowed = int(math.floor(limit * n + 1e-9))
        if n_sup > allowed:
            found.append(f"{n_sup} records are suppressed, more than the limit "
                         f"{limit:g} x {n} = {allowed}")
    for model in job.privacy:
        check = CHECKS.get(model.name)
        if cells and model.name == "k-anonymity":
            found.extend(wildcard_violations(counts.sizes, counts.qis, acc.marker, model.k,
                                             job.transformation.combinations))
        elif check is None:
            found.append(f"no independent check is available for model '{model.name}'")
        else:
            found.extend(check(model, counts))
    return counts, n_sup, found


# --- values removed from suppressed records -------------------------------------------------
def _removed_values(job: Job) -> list[str]:
    """Sensitive attributes whose overall distribution a model needs although the
    export blanked the suppressed records' values (``remove_suppressed_values``)."""
    if not getattr(job.transformation, "remove_suppressed_values", False):
        return []
    return sorted({m.attribute for m in job.privacy
                   if m.name in ("t-closeness", "delta-disclosure", "beta-likeness")})


def restore_removed(acc: CountAccumulator, job: Job) -> list[str]:
    """Put the suppressed records' removed sensitive values back into the overall
    distributions, from the job's input data (the release's rows are the input's, or
    with a research subset the subset's, in order), reading only those columns in
    chunks. Returns the problems found (none: restored)."""
    from engine.verifier.source import InputSubset, subset_chunks
    needs = [a for a in _removed_values(job) if a in acc.sensitive]
    rows = np.concatenate(acc.suppressed_rows) if acc.suppressed_rows else np.zeros(0, int)
    if not needs or not len(rows):
        return []
    if not (job.data.path or getattr(job.data, "url", None)):
        return [f"suppressed records' values of {', '.join(needs)} were removed and the job "
                f"names no input data to restore the overall distribution"]
    subset = InputSubset(job) if _subset_models(job) else None
    fix: dict[str, dict[str, int]] = {a: {} for a in needs}
    person = spec.person(job) if acc.persons else None
    pairs: dict[str, list] = {a: [] for a in needs}  # with persons: (value, person)
    released = 0  # release rows before the chunk
    try:
        for chunk, _, mask in subset_chunks(job, subset, needs + ([person] if person else []),
                                            CHUNK_ROWS):
            here = np.arange(len(chunk)) if mask is None else np.flatnonzero(mask)
            numbers = released + np.arange(len(here))  # their rows in the release
            released += len(here)
            picked = chunk.iloc[here[np.isin(numbers, rows)]]
            for a in needs:
                for v, n in picked[a].value_counts().items():
                    fix[a][str(v)] = fix[a].get(str(v), 0) + int(n)
                if person:
                    pairs[a].append(picked[[a, person]].drop_duplicates().to_numpy())
    except DataError as e:
        return [f"cannot restore the suppressed records' removed values: {e}"]
    if released != acc.rows:
        return [f"the input data has {released} rows to release, the output {acc.rows}: "
                f"cannot restore the suppressed records' removed values"]
    acc.overall_fix = fix
    if person:
        acc.person_overall_fix = {a: np.concatenate(p) if p else np.zeros((0, 2), object)
                                  for a, p in pairs.items()}
    return []


class _People:
    """Each released row's person from the job's input (``[data] person``): the
    release's rows are the input's in order, suppressed ones included (a subset job's:
    the subset's); the person column itself is never released."""

    def __init__(self, job: Job, subset_mask=None, input_frame=None):
        from engine.verifier.counts import PERSON
        from engine.verifier.source import InputSubset, PersonStream
        self.column = PERSON
        self.name = spec.person(job)
        subset = None
        if _subset_models(job):
            subset = (InputSubset(job) if subset_mask is None
                      else _GivenSubset(np.asarray(subset_mask, dtype=bool)))
        self.stream = PersonStream(job, self.name, subset, input_frame)
        self.released = 0
        self.missing = 0

    def attach(self, chunk):
        persons = self.stream.take(len(chunk))
        self.released += len(chunk)
        if len(persons) < len(chunk):  # more released rows than input rows
            self.missing += len(chunk) - len(persons)
            persons = np.concatenate([persons, np.full(len(chunk) - len(persons),
                                                       "\x1eno person", dtype=object)])
        return chunk.assign(**{self.column: persons})

    def problems(self) -> list[str]:
        found = []
        left = self.stream.rest()
        if self.missing or left:
            found.append(f"[data] person = '{self.name}': the release has "
                         f"{self.released} rows, the input's released rows "
                         f"{self.released - self.missing + left}: rows cannot be matched "
                         f"to their persons")
        if self.stream.empty_rows:
            found.append(f"[data] person = '{self.name}' is empty in "
                         f"{self.stream.empty_rows} input row(s)")
        return found


# --- entry points ---------------------------------------------------------------------------
def verify_frame(frame: pd.DataFrame, job: Job, subset_mask=None,
                 input_frame=None) -> VerifyReport:
    """Check a released table held in memory (values as strings) against ``job``;
    with a research subset the job's input data (or ``input_frame``, a DataFrame) is
    read to resolve it (or ``subset_mask``, a mask of the input's rows, gives it) and
    to count the population."""
    frame = frame.astype(str)
    has_subset = _subset_models(job)
    qis = [q for q in _qis(job) if q in frame.columns]
    sensitive = [a for a in _sensitive(job) if a in frame.columns]
    chunk = frame
    people = None
    if spec.person(job):
        mask = None if subset_mask is None else np.asarray(subset_mask, dtype=bool)
        people = _People(job, mask, input_frame)
        chunk = people.attach(frame)
    acc, problems = count_released([(chunk, None)], qis, sensitive, job)
    if people:
        problems += people.problems()
    bad = frozenset(n for n, pseudonym in _pseudonymized(job).items()
                    if n in frame.columns and not looks_pseudonymized(frame[n], pseudonym))
    report = judge(acc, job, list(frame.columns), has_subset, not_pseudonyms=bad,
                   subset_mask=subset_mask, input_frame=input_frame)
    problems += perturbation_violations(frame, job, input_frame=input_frame)
    if problems:
        report.violations[:0] = problems
        report.ok = False
    return report


def _read_chunks(path: Path, delimiter: str, columns: list[str], encoding: str,
                 chunk_rows: int) -> Iterator[pd.DataFrame]:
    import pandas as pd
    reader = pd.read_csv(path, sep=delimiter, dtype=str, keep_default_na=False,
                         na_filter=False, usecols=columns, encoding=encoding, engine="c",
                         chunksize=chunk_rows)
    with reader:
        yield from reader


def _header(path: Path, delimiter: str, encoding: str | None = None) -> tuple[list[str], str]:
    import pandas as pd
    for tried in ([encoding] if encoding else ["utf-8-sig", "cp1252"]):
        try:
            cols = pd.read_csv(path, sep=delimiter, nrows=0, encoding=tried, dtype=str)
            return [str(c) for c in cols.columns], tried
        except UnicodeDecodeError:
            continue
        except pd.errors.EmptyDataError:
            raise DataError(f"{path} is empty") from None
        except LookupError:
            raise DataError(f"unknown encoding '{tried}'") from None
        except (pd.errors.ParserError, ValueError) as e:
            raise DataError(f"{path} cannot be read as CSV: {str(e)[:200]}") from None
    raise DataError(f"{path} is not {encoding or 'UTF-8 or cp1252'} text (give --encoding)")


def verify_file(path: str | Path, job: Job, delimiter: str | None = None,
                chunk_rows: int = CHUNK_ROWS, encoding: str | None = None,
                fast: bool | None = None, block_bytes: int | None = None,
                identifiers: bool = False, piece_bytes: int | None = None,
                threads: int | None = None) -> VerifyReport:
    """Check an exported CSV against ``job``, reading it in chunks of ``chunk_rows``
    (``encoding`` None: UTF-8, else cp1252). A file of `FAST_BYTES` or more, or any
    file while pandas is not loaded (``fast`` None, `csv_arrow.use_arrow`; True: any
    file, False: none) is read by Arrow in blocks of ``block_bytes``
    and grouped on integer codes (`engine.data.csv_distinct`) where Arrow reads it as
    pandas does: the same report. A plain file (its header a plain record, the whole
    file text in the encoding pandas would read it in) is read that way without
    loading pandas at all. A file of two pieces of ``piece_bytes`` (None: 16 MB, less
    for many threads: `csv_rows.piece_size`) or more is read in pieces on ``threads``
    threads (None: every core; `engine.verifier.csv_rows`), the same report. ``identifiers``: also add `identifier_violations`'s findings, from the
    same reading when the file was read in pieces."""
    path = Path(path)
    given_encoding = encoding
    delimiter = delimiter or job.data.delimiter or ";"
    scan = _PieceScan(job, identifiers, piece_bytes, threads)
    report = _verify_csv(path, job, delimiter, chunk_rows, encoding, fast, block_bytes, scan)
    if identifiers:
        scan.add_to(report, path, delimiter=delimiter, encoding=given_encoding,
                    chunk_rows=chunk_rows)
    return report


def _generalized(report: VerifyReport) -> list[str]:
    """The quasi-identifiers released at a level above 0 (hierarchy labels)."""
    return [q for q, level in report.levels.items() if level]


class _ScanInReading:
    """The identifier scan done in the verifier's own reading of a file on every core
    (CSV pieces, Parquet row groups): ``setup`` gives the reading the columns to scan
    and the scan of a piece's column; ``result`` is the reading once it succeeded
    (None: the file was read otherwise, and scanned by `identifier_violations`)."""

    def __init__(self, job: Job, identifiers: bool):
        self.job, self.identifiers = job, identifiers
        self.values = None
        self.result = None

    def setup(self, columns: list[str]) -> tuple:
        """The columns to scan and the scan of one piece's column (or none)."""
        if not self.identifiers:
            return (), None
        from engine.identifiers.released import input_identifying_values, scanned
        from engine.identifiers.scan import scan_column
        self.values = values = input_identifying_values(self.job)

        def piece(name, words, codes):
            return scan_column(name, words, codes, values)
        return scanned(columns, self.job), piece

    def violations(self, report: VerifyReport) -> list[str]:
        from engine.verifier.csv_rows import identifier_findings
        return _identifier_messages(identifier_findings(
            self.result, self.job, self.values, _generalized(report)))

    def add_to(self, report: VerifyReport, path, **read) -> None:
        """The findings into ``report`` (which then fails): from this reading when it
        scanned, else from a reading of ``path`` of its own (`identifier_violations`;
        ``read``: its delimiter, encoding and chunk rows)."""
        found = (self.violations(report) if self.result is not None else
                 identifier_violations(path, self.job, generalized=_generalized(report),
                                       **read))
        if found:
            report.violations += found
            report.ok = False


class _PieceScan(_ScanInReading):
    """How `verify_file` reads a file in pieces (`engine.verifier.csv_rows`) and, with
    ``identifiers``, scans it for identifiers in the same reading."""

    def __init__(self, job: Job, identifiers: bool, piece_bytes: int | None,
                 threads: int | None):
        from engine.verifier import csv_rows
        super().__init__(job, identifiers)
        self.threads = threads or csv_rows.cores()
        self.piece_bytes = piece_bytes or csv_rows.piece_size(self.threads)

    def count(self, path: Path, delimiter: str, encoding: str, columns: list[str],
              counted, pseudonyms, looks):
        from engine.verifier import csv_rows
        if path.stat().st_size < 2 * self.piece_bytes:
            return None
        scanned, piece = self.setup(columns)
        self.result = csv_rows.count_pieces(
            path, delimiter, encoding, columns, counted, pseudonyms, looks, scanned, piece,
            self.piece_bytes, self.threads)
        return self.result


def _verify_csv(path: Path, job: Job, delimiter: str, chunk_rows: int,
                encoding: str | None, fast: bool | None, block_bytes: int | None,
                scan: _PieceScan) -> VerifyReport:
    """`verify_file`'s count and judgement."""
    if fast is None:
        fast = path.is_file() and (path.stat().st_size >= FAST_BYTES
                                   or csv_arrow.use_arrow(path.stat().st_size))
    # removed values need the suppressed rows' numbers, persons each row's place
    fast = fast and not _removed_values(job) and not spec.person(job)
    plain = _plain_header(path, delimiter, encoding) if fast else None
    if plain is not None:
        report = _verify_stream(plain[0], job, None, csv=True,
                                coded=_coded(path, delimiter, *plain, block_bytes, scan))
        if report is not None:
            return report
        fast = False  # Arrow refused the file: pandas reads it, as below
    columns, encoding = _header(path, delimiter, encoding)
    _one_column(path, columns, delimiter, job)

    def read(present):
        import pandas as pd
        start = 0
        try:
            for chunk in _read_chunks(path, delimiter, present, encoding, chunk_rows):
                start += len(chunk)
                yield chunk
        except pd.errors.ParserError as e:
            raise DataError(f"{path} cannot be read as CSV near row {start + 1}: "
                            f"{str(e)[:200]}") from None
        except UnicodeDecodeError:
            raise DataError(f"{path} is not {encoding} text after row {start}") from None

    coded = _coded(path, delimiter, columns, encoding, block_bytes, scan) if fast else None
    return _verify_stream(columns, job, read, coded, csv=True)


def _coded(path: Path, delimiter: str, columns: list[str], encoding: str,
           block_bytes: int | None, pieces: _PieceScan | None = None):
    """`_verify_stream`'s ``coded``: the file's distinct rows by Arrow (or None): in
    pieces on every core (``pieces``, a file of two pieces or more), else streamed."""
    from engine.data import csv_distinct

    def coded(counted, subset_mask, pseudonyms, looks_pseudonymized):
        if pieces is not None and subset_mask is None:
            got = pieces.count(path, delimiter, encoding, columns, counted, pseudonyms,
                               looks_pseudonymized)
            if got is not None:
                return got
        return csv_distinct.count_csv(
            path, delimiter, encoding, columns, counted, subset_mask, pseudonyms,
            looks_pseudonymized, block_bytes or csv_distinct.BLOCK_BYTES)
    return coded


#: bytes decoded at once when checking that a whole file is text
_DECODE_CHUNK = 1 << 24
#: codecs in which every ASCII byte is its own character, whatever came before
_ASCII_COMPATIBLE = frozenset({"utf-8", "utf-8-sig", "ascii", "iso8859-1", "iso8859-15",
                               "cp1252"})


def _plain_header(path: Path, delimiter: str,
                  encoding: str | None) -> tuple[list[str], str] | None:
    """The header and encoding `_header` (pandas) finds, for a file where they are
    certain without pandas: every byte of the file decodes in the encoding (given, or
    UTF-8 with or without a byte order mark: what pandas tries first), and the header
    is a plain record (no quote character, no byte order mark left, at least two
    names, none empty, none twice). None: ask pandas."""
    import codecs
    codec = encoding or "utf-8-sig"
    try:
        decoder = codecs.getincrementaldecoder(codec)()
        # ASCII bytes are text in these (a chunk checked at memory speed, unless a
        # character begun in the chunk before is pending)
        ascii_text = codecs.lookup(codec).name in _ASCII_COMPATIBLE
        with open(path, "rb") as f:
            while chunk := f.read(_DECODE_CHUNK):
                if not (ascii_text and chunk.isascii() and not decoder.getstate()[0]):
                    decoder.decode(chunk)
        decoder.decode(b"", final=True)
    except (LookupError, UnicodeDecodeError, OSError):
        return None
    names = csv_arrow.first_record(path, delimiter, '"', codec)
    if (not names or len(names) < 2 or len(set(names)) != len(names)
            or any(not n or '"' in n or "\ufeff" in n for n in names)):
        return None
    with open(path, encoding=codec, newline="") as f:
        for line in f:
            if line.strip("\r\n"):
                if '"' in line:  # the first record: no quoting to interpret
                    return None
                break
    return names, codec


def _one_column(path, columns: list[str], delimiter: str, job: Job) -> None:
    """Refuse a file read as one column when the job names several (wrong delimiter)."""
    if len(columns) == 1 and len(_qis(job) + _sensitive(job)) > 1:
        guess = next((d for d in (";", ",", "\t", "|") if d != delimiter and d in columns[0]),
                     None)
        hint = f"; is the delimiter '{guess}'? (give --delimiter)" if guess else ""
        raise DataError(f"{path} has one column when read with delimiter "
                        f"'{delimiter}'{hint}")


def _verify_stream(columns: list[str], job: Job, read, coded=None,
                   csv: bool = False) -> VerifyReport:
    """Count the chunks ``read(present columns)`` yields (string columns, the file's
    rows in order) and judge them: the one place a file-backed release is checked.
    ``coded(counted columns, subset mask or None, pseudonyms, looks_pseudonymized)``,
    if given, is tried first: the file's distinct rows with their records
    (`engine.data.csv_distinct.CodedRows`), or None to read the chunks. With ``read``
    None the report is None when ``coded`` declines the file. ``csv``: the cells are a
    CSV export's, formula cells quoted (`engine.verifier.formula_cells`): read as released."""
    qis = _qis(job)
    wanted = set(qis + _sensitive(job))
    pseudonyms = {n: spec for n, spec in _pseudonymized(job).items() if n in columns}
    present = [c for c in columns if c in wanted | set(pseudonyms)]
    bad_pseudonyms: set[str] = set()
    has_subset = _subset_models(job)  # the release holds the subset's records only
    people = _People(job) if spec.person(job) else None

    def chunks():
        for chunk in read(present):
            if csv:
                unquote_frame(chunk, present)
            if pseudonyms:
                bad_pseudonyms.update(n for n, p in pseudonyms.items()
                                      if not looks_pseudonymized(chunk[n], p))
            yield (people.attach(chunk) if people else chunk), None

    counted_qis = [q for q in qis if q in present]
    counted_sensitive = [a for a in _sensitive(job) if a in present]
    source = chunks() if read is not None else None
    if coded is not None and people is None:  # grouped rows have no persons
        got = coded(list(dict.fromkeys(counted_qis + counted_sensitive)),
                    None, pseudonyms, looks_pseudonymized)
        if got is not None:
            bad_pseudonyms.update(got.bad_pseudonyms)
            counted = ({n: unquote_array(v) for n, v in got.columns.items()} if csv
                       else got.columns)
            source = [(counted, got.in_subset, got.weights)]
    if source is None:
        return None  # no reader given but the coded one, and it declined the file
    acc, problems = count_released(source, counted_qis, counted_sensitive, job)
    if people:
        problems += people.problems()
    report = judge(acc, job, columns, has_subset, frozenset(bad_pseudonyms))
    if problems:
        report.violations[:0] = problems
        report.ok = False
    return report


def verify_parquet(path: str | Path, job: Job, chunk_rows: int = CHUNK_ROWS,
                   identifiers: bool = False, threads: int | None = None) -> VerifyReport:
    """Check an exported Parquet file against ``job``, reading ``chunk_rows`` rows at a
    time (a release of hundreds of millions of rows is never held whole); a folder of
    part files or a glob goes to `verify_parts`. Text columns are read row group by
    row group on ``threads`` threads (None: every core; `engine.verifier.parquet_rows`).
    ``identifiers``: also add `identifier_violations`'s findings, from the same reading
    when the row groups were read so."""
    import pyarrow.parquet as pq
    path = Path(path)
    if path.is_dir() or is_glob(str(path)):
        return verify_parts(path, job, chunk_rows=chunk_rows, identifiers=identifiers,
                            threads=threads)
    try:
        columns = [str(c) for c in pq.ParquetFile(path).schema_arrow.names]
    except Exception as e:
        raise DataError(f"{path} cannot be read as Parquet: {str(e)[:200]}") from None

    def read(present):
        for batch in pq.ParquetFile(path).iter_batches(batch_size=chunk_rows,
                                                       columns=present):
            yield batch.to_pandas().astype(object).fillna("").astype(str)

    scan = _ScanInReading(job, identifiers)
    coded = None
    if not _removed_values(job) and not spec.person(job):  # those need each row's place
        def coded(counted, subset_mask, pseudonyms, looks):  # every core
            from engine.verifier.parquet_rows import count_parquet
            if subset_mask is not None:
                return None
            scanned, piece = scan.setup(columns)
            scan.result = count_parquet(path, counted, pseudonyms, looks, threads,
                                        scanned, piece)
            return scan.result
    report = _verify_stream(columns, job, read, coded)
    if identifiers:
        scan.add_to(report, path, chunk_rows=chunk_rows)
    return report


# --- a release in several files (Spark's part files, a glob) --------------------------------
def release_parts(path: str | Path) -> tuple[list[Path], str]:
    """The files of a release written as several: a folder of part files (Spark's
    ``part-00000-*.csv`` / ``.parquet``, or any ``*.csv`` / ``*.parquet`` files) or a
    glob, in name order (the records' order), and their format ("csv" | "parquet")."""
    import glob as globbing
    path = Path(path)
    if path.is_dir():
        files = [p for p in path.iterdir() if p.is_file() and not p.name.startswith((".", "_"))]
        parts = [p for p in files if p.name.startswith("part-")]
        files = parts or files
    elif is_glob(str(path)):
        files = [Path(f) for f in globbing.glob(str(path)) if Path(f).is_file()]
        if not files:
            raise DataError(f"{path} matches no file")
    else:
        raise DataError(f"{path} is neither a folder of part files nor a glob")
    kinds = {_kind(p) for p in files}
    kinds.discard(None)
    if not kinds:
        where = "the folder " if path.is_dir() else ""
        raise DataError(f"{where}{path} holds no .csv or .parquet file")
    if len(kinds) > 1:
        raise DataError(f"{path} holds both CSV and Parquet files: give one kind")
    kind = kinds.pop()
    return sorted((p for p in files if _kind(p) == kind), key=lambda p: p.name), kind


def _kind(path: Path) -> str | None:
    suffix = path.suffix.lower()
    return "parquet" if suffix in (".parquet", ".pq") else "csv" if suffix == ".csv" else None


def verify_parts(path: str | Path, job: Job, delimiter: str | None = None,
                 chunk_rows: int = CHUNK_ROWS, identifiers: bool = False,
                 threads: int | None = None, encoding: str | None = None) -> VerifyReport:
    """Check a release written as several files (a folder of Spark part files, CSV with
    a header each or Parquet, or a glob) against ``job``: DuckDB reads the files one
    after the other in name order, every column as text, and streams them in batches
    of ``chunk_rows`` rows into the same count as a single file's (memory grows with the
    classes, not the rows). CSV parts are UTF-8 with the job's delimiter (or
    ``delimiter``) and must all have the first part's header. Parquet parts whose
    counted columns are text are read row group by row group on ``threads`` threads
    instead (None: every core; `engine.verifier.parquet_rows`, the files as one
    table). ``identifiers``: also add `identifier_violations`'s findings (CSV parts
    scanned in ``encoding``), from that reading when the parts were read so."""
    found_scan = _ScanInReading(job, identifiers)
    report = _verify_parts(path, job, delimiter, chunk_rows, found_scan, threads)
    if identifiers:
        found_scan.add_to(report, path, delimiter=delimiter, encoding=encoding,
                          chunk_rows=chunk_rows)
    return report


def _verify_parts(path, job: Job, delimiter, chunk_rows: int, found_scan: _ScanInReading,
                  threads: int | None) -> VerifyReport:
    """`verify_parts`'s count and judgement."""
    import duckdb
    files, kind = release_parts(path)
    delimiter = delimiter or job.data.delimiter or ";"
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = true")

    def scan(f: Path) -> str:
        name = "'" + str(f).replace("'", "''") + "'"
        if kind == "parquet":
            return f"read_parquet({name})"
        sep = "'" + delimiter.replace("'", "''") + "'"
        return (f"read_csv({name}, delim={sep}, quote='\"', escape='\"', header=true, "
                f"all_varchar=true, strict_mode=true, encoding='utf-8')")

    def header(f: Path) -> list[str]:
        if f.stat().st_size == 0:
            return []
        try:
            return [str(r[0]) for r in con.execute(f"DESCRIBE SELECT * FROM {scan(f)}")
                    .fetchall()]
        except duckdb.Error as e:
            raise DataError(f"{f} cannot be read as {kind.upper()}: "
                            f"{str(e).splitlines()[0][:200]}") from None

    try:
        columns = next((h for h in map(header, files) if h), None)
        if columns is None:
            raise DataError(f"{path}: every part file is empty")
        if kind == "csv":
            _one_column(path, columns, delimiter, job)

        def read(present):
            quoted = ['"' + c.replace('"', '""') + '"' for c in present]
            cols = ", ".join(f"coalesce(CAST({c} AS VARCHAR), '') AS {c}" for c in quoted)
            for f in files:
                got = header(f)
                if not got:
                    continue
                if got != columns:
                    raise DataError(f"{f} has the columns {', '.join(got)}, not those of "
                                    f"{files[0].name}: {', '.join(columns)}")
                try:
                    reader = con.sql(f"SELECT {cols or '1 AS __row'} FROM {scan(f)}"
                                     ).to_arrow_reader(chunk_rows)
                    for batch in reader:
                        chunk = batch.to_pandas()
                        yield chunk[present] if present else chunk.iloc[:, :0]
                except duckdb.Error as e:
                    raise DataError(f"{f} cannot be read as {kind.upper()}: "
                                    f"{str(e).splitlines()[0][:200]}") from None

        coded = None
        if kind == "parquet" and not _removed_values(job) and not spec.person(job):
            parts = [f for f in files if f.stat().st_size]

            def coded(counted, subset_mask, pseudonyms, looks):  # every core
                from engine.verifier.parquet_rows import count_parquet
                if subset_mask is not None:
                    return None
                scanned, piece = found_scan.setup(columns)
                try:
                    found_scan.result = count_parquet(parts, counted, pseudonyms, looks,
                                                      threads, scanned, piece, columns)
                except (OSError, ValueError):  # pyarrow's errors: DuckDB's message below
                    found_scan.result = None
                return found_scan.result
        return _verify_stream(columns, job, read, coded, csv=kind == "csv")
    finally:
        con.close()


# --- identifiers in the released columns (engine/identifiers, issue 25) ---------------------
def identifier_violations(source, job: Job, delimiter: str | None = None,
                          encoding: str | None = None, chunk_rows: int = CHUNK_ROWS,
                          generalized: Iterable[str] = ()) -> list[str]:
    """The scan the release ran before it was written, run again on the released file
    (a CSV, Parquet or xlsx path, a folder of part files or a glob, or a DataFrame): one
    violation per column and kind of identifier found (``engine.identifiers.released``).
    ``generalized``: quasi-identifiers read at a level above 0 (hierarchy labels, not
    the data's values)."""
    import dataclasses

    from engine.identifiers import released as scan
    skip = set(generalized)
    if skip:  # their labels are the job's hierarchies', not values of the data
        job = dataclasses.replace(job, attributes={
            n: (dataclasses.replace(a, identifiers="keep", reason="generalized")
                if n in skip else a) for n, a in job.attributes.items()})
    if not isinstance(source, (str, Path)):
        chunks = scan.frame_chunks([source])
    elif Path(source).is_dir() or (is_glob(str(source)) and not Path(source).exists()):
        files, kind = release_parts(source)  # the parts in order, one scan
        chunks = (c for f in files if f.stat().st_size
                  for c in _file_chunks(f, kind, job, delimiter, encoding, chunk_rows, scan))
    else:
        suffix = Path(source).suffix.lower()
        kind = "parquet" if suffix in (".parquet", ".pq") else suffix.lstrip(".")
        chunks = _file_chunks(Path(source), kind, job, delimiter, encoding, chunk_rows, scan)
    return _identifier_messages(scan.scan_chunks(chunks, job))


def _identifier_messages(findings) -> list[str]:
    return [f"identifiers in a released column: {f.message()}" for f in findings]


def _file_chunks(source: Path, kind: str, job: Job, delimiter, encoding, chunk_rows: int,
                 scan):
    """One released file's chunks for the identifier scan, by its ``kind``."""
    if kind == "parquet":
        import pyarrow.parquet as pq
        return scan.arrow_chunks(pq.ParquetFile(source).iter_batches(batch_size=chunk_rows))
    if kind == "xlsx":
        return scan.frame_chunks([_read_xlsx(source)])
    return scan.csv_chunks(source, delimiter or job.data.delimiter or ";",
                           encoding or "utf-8")


def _read_xlsx(path: Path) -> pd.DataFrame:
    """The first sheet of an xlsx file, every cell as text ("" when empty), read by
    openpyxl (the verifier's own reader, not the export's)."""
    import pandas as pd
    from openpyxl import load_workbook
    try:
        wb = load_workbook(path, read_only=True, data_only=True)
    except Exception as e:  # openpyxl raises many kinds for a file that is not xlsx
        raise DataError(f"{path} cannot be read as xlsx: {str(e)[:200]}") from None
    try:
        rows = wb.worksheets[0].iter_rows(values_only=True)
        header = next(rows, ())
        data = [["" if v is None else str(v) for v in r] for r in rows]
    finally:
        wb.close()
    return pd.DataFrame(data, columns=["" if h is None else str(h) for h in header])


# --- sdcMicro's perturbative methods (engine/verifier/perturbation.py, issue 28) -------------
def perturbation_violations(source, job: Job, delimiter: str | None = None,
                            encoding: str | None = None, input_frame=None) -> list[str]:
    """The checks of PRAM'd, noisy, rank-swapped and shuffled columns: the released
    file (a CSV, Parquet or xlsx path, or a DataFrame) against the job's input data
    (or ``input_frame``), row by row."""
    from engine.verifier import perturbation as checks
    names = checks.perturbed_attributes(job)
    if not names:
        return []
    import pandas as pd
    if not isinstance(source, (str, Path)):
        released = source
    elif Path(source).suffix.lower() in (".parquet", ".pq"):
        released = pd.read_parquet(source).astype(str)
    elif Path(source).suffix.lower() == ".xlsx":
        released = _read_xlsx(Path(source))
    else:
        try:
            released = pd.read_csv(source, sep=delimiter or job.data.delimiter or ";",
                                   encoding=encoding or "utf-8", dtype=str,
                                   keep_default_na=False, na_filter=False,
                                   usecols=lambda c: c in set(names))
        except (OSError, ValueError, UnicodeDecodeError) as e:
            return [f"cannot read {source} to check the perturbed attributes: {str(e)[:200]}"]
    needed = checks.columns_needed(job)
    if input_frame is not None:
        original = input_frame[[c for c in needed if c in input_frame.columns]].astype(str)
    else:
        original, problem = checks.read_input(job, needed)
        if problem:
            return [problem]
    return checks.check(released, original, job)
