"""In-memory form of a job: data, attributes, privacy models, transformation and metric.

The TOML job file (``engine.project.job_file``) reads into and writes from
this; the GUI edits it; ``engine.anonymize`` runs it. Every job-file key of
these tables is declared here once (``engine.schema.param_field``); privacy
models and metrics declare theirs next to their classes, the research subset
and the population in ``engine.subset`` and ``engine.privacy.population``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engine.hierarchy.model import Hierarchy
from engine.markers import SUPPRESSED
from engine.metrics import Metric
from engine.metrics.loss import LossMetric
from engine.privacy.base import PrivacyModel
from engine.schema import FrozenMap, frozen, param_field

IDENTIFYING = "identifying"
QUASI_IDENTIFYING = "quasi-identifying"
SENSITIVE = "sensitive"
INSENSITIVE = "insensitive"
ATTRIBUTE_TYPES = (IDENTIFYING, QUASI_IDENTIFYING, SENSITIVE, INSENSITIVE)
#: how an attribute is transformed (engine/transform/, README "Transformation methods")
TRANSFORMATIONS = ("generalization", "microaggregation", "identity", "suppression",
                   "top-bottom-coding", "pram", "noise", "rank-swapping", "shuffling")
#: sdcMicro's perturbative methods on insensitive attributes (engine/transform/perturbation.py,
#: docs/guide/survey-methods.md)
PERTURBATIONS = ("pram", "noise", "rank-swapping", "shuffling")
#: addNoise's methods (sdcMicro): independent normal noise, noise correlated as the
#: attributes are (Kim 1986), and the mean- and variance-preserving "correlated2"
NOISE_METHODS = ("additive", "correlated", "correlated2")
#: how records violating the privacy models are treated: ARX's record suppression, or
#: sdcMicro's local suppression of cells (engine/transform/cell_suppression.py)
SUPPRESSION_KINDS = ("records", "cells")
#: microaggregation's aggregate functions (engine/transform/microaggregation.py)
AGGREGATE_FUNCTIONS = ("arithmetic-mean", "geometric-mean", "median", "mode", "interval")
#: what a column's identifiers do to the release: refuse it, or keep them with a reason
IDENTIFIER_POLICIES = ("refuse", "keep")
#: how microaggregated records are grouped (engine/transform/clustering.py)
CLUSTERINGS = ("none", "hierarchy", "mdav")

#: search algorithms: job-file name -> (human label, one-line explanation)
ALGORITHM_INFO = {
    "optimal": ("Optimal (Flash)", "Finds the transformation with the least loss, pruning "
                "with bounds; provably optimal."),
    "exhaustive": ("Exhaustive", "Checks every transformation (a reference; slow on large "
                   "lattices)."),
    "lightning": ("Lightning", "Best-first heuristic for large lattices, within the time "
                  "or step limit."),
    "top-down": ("Top-down", "Heuristic that specializes from the most general "
                 "transformation."),
    "genetic": ("Genetic", "Evolves transformations in two subpopulations (settings in "
                "[transformation.genetic])."),
    "kgen": ("kGen", "Genetic search of Table 6 of the KGEN paper (settings in "
             "[transformation.genetic])."),
    "datafly": ("DataFly", "Generalizes the attribute with most distinct values until "
                "the models hold."),
    "igreedy": ("Improved greedy", "Greedy generalization guided by the loss."),
}
ALGORITHMS = tuple(ALGORITHM_INFO)


@dataclass(frozen=True)
class AttributeConfig:
    """``[attributes."name"]``: one column's role and generalization."""

    type: str = param_field("choice", INSENSITIVE, choices=ATTRIBUTE_TYPES, label="Type",
                            help="identifying: removed; quasi-identifying: generalized; "
                                 "sensitive: protected by models; insensitive: kept")
    hierarchy: Hierarchy | None = None
    hierarchy_path: str | None = param_field("path", None, name="hierarchy",
                                             label="Hierarchy",
                                             help="the generalization hierarchy's CSV file")
    min_level: int | None = param_field("int", None, low=0, label="Minimum level",
                                        help="the lowest generalization level allowed")
    max_level: int | None = param_field("int", None, low=0, label="Maximum level",
                                        help="the highest generalization level allowed")
    weight: float | None = param_field("float", None, low=0, label="Weight",
                                       help="the attribute's weight in weighted metrics")
    data_type: str | None = param_field("text", None, label="Data type",
                                        help="string, integer, decimal, date...")
    format: str | None = param_field("text", None, label="Format",
                                     help="the format of dates and numbers")
    #: ``hierarchy = { builder = "intervals", ... }``: the builder table (JSON form of
    #: engine.hierarchy.builders), built from the column when the data is bound
    #: (engine/hierarchy/from_spec.py)
    hierarchy_builder: dict | None = None
    #: identifying attributes: engine.pseudonyms.PseudonymSpec, released instead of removed
    pseudonym: object | None = None
    # how the attribute is transformed (engine/transform/, README "Transformation
    # methods"); engine.transform.job_keys checks the combinations
    transformation: str = param_field(
        "choice", "generalization", choices=TRANSFORMATIONS, label="Transformation",
        help="generalization by the hierarchy, microaggregation per class, or a fixed "
             "rule (identity, suppression, top-bottom-coding)")
    function: str | None = param_field(
        "choice", None, choices=AGGREGATE_FUNCTIONS, label="Aggregate function",
        help="microaggregation: what each class releases instead of its values")
    ignore_missing: bool = param_field(
        "bool", False, label="Ignore missing values",
        help="microaggregation: leave empty and NULL values out (else they count as 0)")
    clustering: str = param_field(
        "choice", "none", choices=CLUSTERINGS, label="Clustering",
        help="microaggregation: none (classes of the other attributes), hierarchy (this "
             "attribute's hierarchy shapes the classes, ARX) or mdav (similar values)")
    top: float | None = param_field(
        "float", None, label="Top code",
        help="top-bottom-coding: numbers above it are released as it")
    bottom: float | None = param_field(
        "float", None, label="Bottom code",
        help="top-bottom-coding: numbers below it are released as it")
    # direct identifiers inside a column released as it is (engine/identifiers,
    # engine/transform/identifiers.py): found ones refuse the release unless scrubbed or kept
    scrub: bool = param_field(
        "bool", False, label="Scrub identifiers",
        help="replace e-mail addresses, phone numbers, names... found in the values by "
             "their kind in brackets ([PHONE], [NAME]...)")
    identifiers: str = param_field(
        "choice", "refuse", choices=IDENTIFIER_POLICIES, label="Identifiers found",
        choice_labels=("refuse the release", "keep them (give a reason)"),
        help="refuse: identifiers found in the values stop the release; keep: release "
             "them, with the reason the report prints")
    reason: str | None = param_field(
        "text", None, label="Reason",
        help="identifiers = \"keep\": why the identifiers may be released (printed in "
             "the report)")
    # [transformation] suppression = "cells" (engine/transform/cell_suppression.py)
    importance: int | None = param_field(
        "int", None, low=1, label="Importance",
        help="suppression = \"cells\": 1 = suppress this quasi-identifier's cells last; "
             "higher numbers are suppressed first (absent: attributes with more distinct "
             "values are suppressed first, as sdcMicro)")
    # sdcMicro's perturbative methods on insensitive attributes
    # (engine/transform/perturbation.py, docs/guide/survey-methods.md)
    pd: float | None = param_field(
        "float", None, low=0, high=1, label="Keep probability",
        help="pram: the least probability of keeping a value (each category's is drawn "
             "between it and 1; absent: 0.8, sdcMicro's)")
    alpha: float | None = param_field(
        "float", None, low=0, high=1, label="Alpha",
        help="pram with invariant = true: the amount of perturbation mixed in (absent: "
             "0.5, sdcMicro's)")
    invariant: bool | None = param_field(
        "bool", None, label="Invariant PRAM",
        help="pram: sdcMicro's invariant transition matrix, which keeps the expected "
             "frequencies (absent or false: the plain matrix P)")
    strata: str | None = param_field(
        "attribute", None, many=True, label="Strata",
        help="pram, shuffling: perturb within the groups of these columns' input values")
    predictors: str | None = param_field(
        "attribute", None, many=True, label="Predictors",
        help="shuffling: numeric columns the values are predicted from (sdcMicro's "
             "model-based data shuffling, Muralidhar and Sarathy); absent: a random "
             "permutation")
    noise: float | None = param_field(
        "float", None, low=0, low_open=True, unit="%", label="Noise",
        help="noise: the noise's size in percent (additive: of the standard deviation; "
             "correlated: of the covariance; absent: 150, sdcMicro's)")
    noise_method: str | None = param_field(
        "choice", None, choices=NOISE_METHODS, label="Noise method",
        help="noise: additive (independent), correlated (as the attributes covary, Kim "
             "1986) or correlated2 (keeps means and variances; delta); absent: additive")
    delta: float | None = param_field(
        "float", None, low=0, high=1, low_open=True, label="Delta",
        help="noise_method = \"correlated2\": the noise's weight (absent: 0.1, sdcMicro's)")
    swap_percent: float | None = param_field(
        "float", None, low=0, high=100, low_open=True, unit="% of records",
        label="Swap range",
        help="rank-swapping: values are swapped with ranks at most this percent of the "
             "records apart (sdcMicro's P; absent: 5)")
    seed: int | None = param_field(
        "int", None, low=0, label="Seed",
        help="pram, noise, rank-swapping, shuffling: the random seed (absent: "
             "[transformation] seed, else a new draw each run); never printed in the report")


@dataclass(frozen=True)
class DataConfig:
    """``[data]``: the data file."""

    path: str | None = param_field("path", None, label="Data file",
                                   help="the data file (relative to the job file): .csv, "
                                        ".xlsx, .xls, .parquet (or a pattern of parts), "
                                        ".sav, .dta, .sas7bdat, .xpt or a SQLite file")
    delimiter: str = param_field("text", ";", label="Delimiter",
                                 help="the character between values")
    encoding: str = param_field("text", "utf-8", label="Encoding",
                                help="the file's character encoding")
    #: columns of the data the job does not name: "warn" (released verbatim as
    #: insensitive, named in a warning) or "refuse" (the command line's --strict)
    unnamed_columns: str = param_field(
        "choice", "warn", choices=("warn", "refuse"), label="Columns not named",
        help="warn: release them as insensitive with a warning; refuse: stop")
    #: the column identifying the person when a person has several rows (visits,
    #: prescriptions): identifying (never released), and every privacy model counts
    #: distinct persons where it counts records (docs/reference/person-level-models.md)
    person: str | None = param_field(
        "attribute", None, label="Person",
        help="the column that identifies the person (several rows per person): never "
             "released; the models count distinct persons instead of records")
    #: the sampling weight of each record (survey data): the survey risk measures
    #: (engine/sdc, ``anonymist risk``) estimate population frequencies as sums of
    #: weights; never a quasi-identifier (docs/guide/survey-risk.md). Also written as
    #: ``[attributes."w"] type = "weight"``
    weight: str | None = param_field(
        "attribute", None, label="Sampling weight",
        help="the column holding each record's sampling weight (positive numbers): the "
             "survey risk measures estimate population frequencies from it")
    #: the household (cluster) of each record: the survey risk measures add the
    #: household risk, 1 - prod(1 - r) over its members (docs/guide/survey-risk.md)
    household: str | None = param_field(
        "attribute", None, label="Household",
        help="the column identifying each record's household (cluster): the survey risk "
             "measures add the household risk")
    # keys after the first three: the app builds DataConfig(path, delimiter, encoding)
    url: str | None = param_field("text", None, label="Database URL",
                                  help="a SQLAlchemy URL (sqlite:///file.db, postgresql://"
                                       "user@host/db) instead of a path; the password comes "
                                       "from $ANONYMIST_DB_PASSWORD")
    table: str | None = param_field("text", None, label="Table",
                                    help="the database table to read (with url or a SQLite "
                                         "path)")
    query: str | None = param_field("text", None, label="Query",
                                    help="an SQL query whose rows are the data, instead of "
                                         "a table")
    sheet: str | None = param_field("text", None, label="Sheet",
                                    help="the workbook's sheet (absent: the first)")
    #: "beside": attributes without a hierarchy take ARX's <data>_hierarchy_<attribute>.csv
    #: from the data file's folder (engine/hierarchy/from_spec.py)
    hierarchies: str | None = param_field(
        "choice", None, choices=("beside",), label="Hierarchies",
        help="beside: attributes without a hierarchy take <data>_hierarchy_<attribute>.csv "
             "from the data file's folder (ARX's names)")


UNNAMED_COLUMNS = ("warn", "refuse")


@dataclass(frozen=True)
class TransformationConfig:
    """``[transformation]``: suppression and the search (the genetic searches' settings
    are ``[transformation.genetic]``, ``engine.search.genetic_settings``)."""

    suppression_limit: float = param_field(
        "float", 0.0, low=0, high=1, label="Suppression limit", unit="fraction of records",
        help="the largest share of records that may be suppressed")
    algorithm: str = param_field(
        "choice", "optimal", choices=ALGORITHMS, label="Algorithm",
        choice_labels=tuple(v[0] for v in ALGORITHM_INFO.values()),
        help="how the transformations are searched")
    practical_monotonicity: bool = param_field(
        "bool", False, label="Assume practical monotonicity",
        help="treat the models as monotonic (faster; the optimum may be missed)")
    time_limit_s: float | None = param_field(
        "float", None, low=0, low_open=True, unit="s", label="Time limit",
        help="stop a heuristic search after this long (absent: no limit)")
    step_limit: int | None = param_field(
        "int", None, low=1, unit="transformations", label="Step limit",
        help="stop a heuristic search after checking this many (absent: no limit)")
    seed: int | None = param_field(
        "int", None, low=0, label="Random seed",
        help="seeds the randomized searches (absent: a new draw each run)")
    heuristic_threshold: int = param_field(
        "int", 100_000, low=0, unit="transformations", label="Heuristic above",
        help="the optimal search hands over to the genetic search above this lattice size")
    threads: int | None = param_field(
        "int", None, low=1, unit="threads", label="Threads",
        help="threads a heuristic search checks transformations in (absent: one per "
             "core while a core is idle, else one; the result is the same with any number)")
    genetic: dict = field(default_factory=FrozenMap)
    #: ARX's local anonymization after the global optimum: {"iterations", "gs_factor",
    #: "adaption_factor"} (engine/transform/local_recoding.py), None: off
    local_recoding: dict | None = None
    suppression_string: str = param_field(
        "text", SUPPRESSED, label="Suppression string",
        help="what suppressed cells are released as")
    remove_suppressed_values: bool = param_field(
        "bool", False, label="Remove suppressed values",
        help="suppressed records also lose their sensitive and insensitive values")
    suppression: str = param_field(
        "choice", "records", choices=SUPPRESSION_KINDS, label="Suppression",
        choice_labels=("whole records (ARX)", "cells (sdcMicro's local suppression)"),
        help="records: records violating the models lose all quasi-identifiers; cells: "
             "they lose as few quasi-identifier cells as k-anonymity needs (a suppressed "
             "cell matches any value)")
    combinations: int | None = param_field(
        "int", None, low=1, label="Combinations",
        help="suppression = \"cells\": k-anonymity for every combination of this many "
             "quasi-identifiers instead of all together (sdcMicro's combs; absent: all)")

    def __post_init__(self):
        object.__setattr__(self, "genetic", frozen(dict(self.genetic or {})))
        if self.local_recoding is not None:
            object.__setattr__(self, "local_recoding", frozen(dict(self.local_recoding)))


@dataclass(frozen=True)
class EngineConfig:
    """Where the records are counted (``[engine]``; see ``engine.backends``)."""

    backend: str = param_field("choice", "auto", choices=("auto", "memory", "duckdb", "spark"),
                               label="Backend",
                               help="where records are counted (engine.backends.BACKENDS)")
    spark_master: str | None = param_field(
        "text", None, label="Spark master",
        help="a Spark master URL (local[4], spark://host:7077, yarn, k8s://...); absent: "
             "spark-submit's --master, else local[*]")
    memory_limit: str | None = param_field("text", None, label="Memory limit",
                                           help="DuckDB's / the Spark driver's memory, "
                                                "e.g. 8GB (absent: DuckDB takes min(3 GB, "
                                                "25 % of RAM), Spark its own default)")
    memory_share: float = param_field("float", 0.25, low=0, high=1, low_open=True,
                                      label="Memory share",
                                      help="auto: DuckDB for files needing more of the memory")


@dataclass(frozen=True)
class Job:
    """A complete anonymization job: a specification that does not change (build a
    changed copy with ``dataclasses.replace``). ``Problem`` binds its own copies of the
    models and the metric, so running a job never changes it or an earlier result."""

    data: DataConfig = field(default_factory=DataConfig)
    attributes: dict[str, AttributeConfig] = field(default_factory=FrozenMap)
    privacy: tuple[PrivacyModel, ...] = ()
    transformation: TransformationConfig = field(default_factory=TransformationConfig)
    metric: Metric = field(default_factory=LossMetric)
    subset: dict | None = None
    population: dict | None = None
    engine: EngineConfig = field(default_factory=EngineConfig)
    base_dir: Path = field(default_factory=Path.cwd)

    def __post_init__(self):
        object.__setattr__(self, "attributes", FrozenMap(self.attributes or {}))
        object.__setattr__(self, "privacy", tuple(self.privacy or ()))
        for key in ("subset", "population"):
            value = getattr(self, key)
            object.__setattr__(self, key, None if value is None else frozen(dict(value)))
        object.__setattr__(self, "base_dir", Path(self.base_dir))
        person = self.data.person
        if person is not None and person not in self.attributes:
            # the person column is identifying whether or not the job names it
            object.__setattr__(self, "attributes", FrozenMap(
                {**self.attributes, person: AttributeConfig(type=IDENTIFYING)}))
        weight = self.data.weight
        if weight is not None and weight not in self.attributes:
            # a sampling weight is released as it is, as surveys release theirs
            object.__setattr__(self, "attributes", FrozenMap(
                {**self.attributes, weight: AttributeConfig(type=INSENSITIVE)}))

    @property
    def weight(self) -> str | None:
        """The sampling-weight column (``[data] weight``), or None."""
        return self.data.weight

    @property
    def household(self) -> str | None:
        """The household column (``[data] household``), or None."""
        return self.data.household

    @property
    def person(self) -> str | None:
        """The column identifying the person (``[data] person``), or None: records are
        then counted as persons (one row, one person)."""
        return self.data.person

    def resolve(self, path: str) -> Path:
        p = Path(path)
        return p if p.is_absolute() else self.base_dir / p
