"""The population a data set was sampled from: ``[population] size = ...`` or
``region = "..."`` (a preset)."""
from __future__ import annotations

from engine.errors import JobError

#: population sizes of the region presets (ARX's; USA is the one its tests use)
REGIONS: dict[str, int] = {
    "USA": 317_238_626, "Canada": 34_834_841, "UK": 63_705_000, "France": 65_820_916,
    "Germany": 80_767_000, "European Union": 507_420_000, "Brazil": 202_656_788,
    "China": 1_366_040_000, "India": 1_210_569_573, "Australia": 23_130_900,
    "Africa": 1_100_000_000, "North America": 565_265_000,
    "South America": 385_742_554,
}


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
