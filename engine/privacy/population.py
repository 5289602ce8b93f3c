"""The population a data set was sampled from: ``[population] size = ...`` or
``region = "..."`` (a preset).

``PopulationModel`` is the same population as the app edits and Analyze risk uses
it: a region preset, or a sampling fraction of the data's records; ``from_job`` and
``to_job`` convert it from and to the job's table.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.errors import JobError
from engine.schema import Param, ParamError, read_table

#: population sizes of the region presets (ARX's; USA is the one its tests use)
REGIONS: dict[str, int] = {
    "USA": 317_238_626, "Canada": 34_834_841, "UK": 63_705_000, "France": 65_820_916,
    "Germany": 80_767_000, "European Union": 507_420_000, "Brazil": 202_656_788,
    "China": 1_366_040_000, "India": 1_210_569_573, "Australia": 23_130_900,
    "Africa": 1_100_000_000, "North America": 565_265_000,
    "South America": 385_742_554,
}


#: the ``[population]`` table's keys, declared once (``engine.schema``); exactly one
POPULATION_PARAMS = (
    Param("size", "int", None, low=1, label="Population size", unit="individuals",
          help="how many individuals the population holds"),
    Param("region", "choice", None, choices=tuple(REGIONS), label="Region",
          help="a region whose population size is known"),
)


def read_population(d: dict) -> dict:
    """A ``[population]`` table checked strictly: ``size`` or ``region``."""
    values = read_table(d, POPULATION_PARAMS, "[population]")
    if (values["size"] is None) == (values["region"] is None):
        raise ParamError("[population] needs either size or region (not both)")
    return {k: values[k] for k in d}


def population_size(population: dict | None) -> int | None:
    """The population size a ``[population]`` table gives, or None without one."""
    if not population:
        return None
    if population.get("size") is not None:
        size = int(population["size"])
        if size < 1:
            raise JobError(f"[population] size must be positive, got {size}")
        return size
    region = population.get("region")
    if region is not None:
        for name, size in REGIONS.items():
            if name.lower() == str(region).lower():
                return size
        raise JobError(f"[population] region '{region}' is not known "
                       f"(one of {', '.join(REGIONS)})")
    raise JobError("[population] needs 'size' or 'region'")


@dataclass(frozen=True)
class PopulationModel:
    """The population the data is a sample of: a region (its size) or, without one,
    the sampling fraction (population size = records / fraction)."""

    region: str | None = "USA"
    sampling_fraction: float = 0.01

    def population_size(self, n_records: int) -> float:
        if self.region in REGIONS:
            return float(REGIONS[self.region])
        return n_records / self.sampling_fraction

    def fraction(self, n_records: int) -> float:
        """The sampling fraction for a table of ``n_records``, within (0, 1]."""
        if self.region in REGIONS:
            return min(1.0, max(n_records, 1) / REGIONS[self.region])
        return min(1.0, max(self.sampling_fraction, 1e-12))

    @classmethod
    def from_job(cls, population: dict | None, n_records: int) -> "PopulationModel | None":
        """The job's ``[population]`` ({"region": ...} or {"size": ...}) as a model for
        ``n_records`` records; None without one."""
        if not population:
            return None
        if population.get("size") is None and population.get("region") is not None:
            region = next((r for r in REGIONS if r.lower() == str(population["region"]).lower()),
                          None)
            if region is not None:
                return cls(region, min(1.0, max(n_records, 1) / REGIONS[region]))
        size = population_size(population)
        return cls(None, min(1.0, max(n_records, 1) / size))

    def to_job(self, n_records: int) -> dict:
        """The job's ``[population]`` table for this model (a custom fraction becomes the
        population size it implies for ``n_records`` records)."""
        if self.region in REGIONS:
            return {"region": self.region}
        return {"size": int(round(self.population_size(max(n_records, 1))))}

    def describe(self, n_records: int) -> str:
        size = self.population_size(n_records)
        where = f"{self.region}, " if self.region in REGIONS else ""
        return f"{where}{size:,.0f} people, sampling fraction {self.fraction(n_records):.3g}"
