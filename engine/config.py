"""In-memory form of a job: data, attributes, privacy models, transformation and metric.

The TOML job file (``engine.project.job_file``) reads into and writes from
this; the GUI edits it; ``engine.anonymize`` runs it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engine.hierarchy.model import Hierarchy
from engine.markers import SUPPRESSED
from engine.metrics import Metric
from engine.metrics.loss import LossMetric
from engine.privacy.base import PrivacyModel

IDENTIFYING = "identifying"
QUASI_IDENTIFYING = "quasi-identifying"
SENSITIVE = "sensitive"
INSENSITIVE = "insensitive"
ATTRIBUTE_TYPES = (IDENTIFYING, QUASI_IDENTIFYING, SENSITIVE, INSENSITIVE)

ALGORITHMS = ("optimal", "exhaustive", "lightning", "top-down", "genetic", "kgen",
              "datafly", "igreedy")


@dataclass
class AttributeConfig:
    type: str = INSENSITIVE
    hierarchy: Hierarchy | None = None
    hierarchy_path: str | None = None
    min_level: int | None = None
    max_level: int | None = None
    weight: float | None = None
    data_type: str | None = None
    format: str | None = None
    #: identifying attributes: engine.pseudonyms.PseudonymSpec, released instead of removed
    pseudonym: object | None = None
    #: generalization | microaggregation | identity | suppression | top-bottom-coding
    #: (engine/transform/, README "Transformation methods")
    transformation: str = "generalization"
    #: microaggregation: arithmetic-mean | geometric-mean | median | mode | interval
    function: str | None = None
    ignore_missing: bool = False
    #: microaggregation: "none"; "hierarchy": classes formed with the attribute's own
    #: hierarchy first (ARX's "clustering and microaggregation"); "mdav": classes split
    #: into MDAV clusters of similar values (engine/transform/clustering.py)
    clustering: str = "none"
    #: top-bottom-coding: values above ``top`` become ``top``, below ``bottom`` ``bottom``
    top: float | None = None
    bottom: float | None = None


@dataclass
class DataConfig:
    path: str | None = None
    delimiter: str = ";"
    encoding: str = "utf-8"
    #: columns of the data the job does not name: "warn" (released verbatim as
    #: insensitive, named in a warning) or "refuse" (the command line's --strict)
    unnamed_columns: str = "warn"


UNNAMED_COLUMNS = ("warn", "refuse")


@dataclass
class TransformationConfig:
    suppression_limit: float = 0.0
    algorithm: str = "optimal"
    practical_monotonicity: bool = False
    time_limit_s: float | None = None
    step_limit: int | None = None
    seed: int | None = None
    heuristic_threshold: int = 100_000
    genetic: dict = field(default_factory=dict)
    #: ARX's local anonymization after the global optimum: {"iterations", "gs_factor",
    #: "adaption_factor"} (engine/transform/local_recoding.py), None: off
    local_recoding: dict | None = None
    #: what suppressed cells are released as
    suppression_string: str = SUPPRESSED
    #: suppressed records also lose their sensitive and insensitive values
    remove_suppressed_values: bool = False


@dataclass(frozen=True)
class EngineConfig:
    """Where the records are counted (``[engine]``; see ``engine.backends``)."""

    backend: str = "auto"           # auto | memory | duckdb | spark
    spark_master: str = "local[2]"  # a Spark master URL
    memory_limit: str | None = None  # DuckDB's / Spark driver's memory, e.g. "8GB"
    memory_share: float = 0.25      # auto: DuckDB for files needing more of the memory


@dataclass
class Job:
    """A complete anonymization job."""

    data: DataConfig = field(default_factory=DataConfig)
    attributes: dict[str, AttributeConfig] = field(default_factory=dict)
    privacy: list[PrivacyModel] = field(default_factory=list)
    transformation: TransformationConfig = field(default_factory=TransformationConfig)
    metric: Metric = field(default_factory=LossMetric)
    subset: dict | None = None
    population: dict | None = None
    engine: EngineConfig = field(default_factory=EngineConfig)
    base_dir: Path = field(default_factory=Path.cwd)

    def attributes_of_type(self, kind: str) -> list[str]:
        return [n for n, a in self.attributes.items() if a.type == kind]

    def resolve(self, path: str) -> Path:
        p = Path(path)
        return p if p.is_absolute() else self.base_dir / p
