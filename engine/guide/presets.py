"""Privacy goals in plain words, each naming the models and parameters it sets.

A preset turns the sensitive attributes of a table into ``[[privacy]]`` tables
of a job (the job file's own structure) and a suppression limit.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class PrivacyGoal:
    """A named choice of privacy models."""

    key: str
    title: str
    explanation: str
    k: int
    l_diversity: int | None = None  # distinct l-diversity on every sensitive attribute
    suppression_limit: float = 0.05
    needs_population: bool = False

    def privacy(self, sensitive: Sequence[str]) -> list[dict]:
        """The job's ``[[privacy]]`` tables for these sensitive attributes."""
        if self.needs_population:
            models = [{"model": "k-map", "k": self.k, "estimator": "poisson",
                       "significance": 0.01}]
        else:
            models = [{"model": "k-anonymity", "k": self.k}]
        if self.l_diversity:
            models += [{"model": "distinct-l-diversity", "attribute": name,
                        "l": self.l_diversity} for name in sensitive]
        return models

    def describe(self, sensitive: Sequence[str]) -> str:
        """The models in words, e.g. "11-anonymity; distinct 2-diversity of diagnosis"."""
        parts = ([f"{self.k}-map against the population (journalist risk at most "
                  f"{1 / self.k:.0%})"] if self.needs_population
                 else [f"{self.k}-anonymity"])
        if self.l_diversity:
            parts += [f"distinct {self.l_diversity}-diversity of {name}" for name in sensitive]
        parts.append(f"at most {self.suppression_limit:.0%} of the records suppressed")
        return "; ".join(parts)


GOALS: tuple[PrivacyGoal, ...] = (
    PrivacyGoal("public", "Public release",
                "Anyone may download the data. Every released record looks like at least "
                "10 others on the quasi-identifiers, and within each such group every "
                "sensitive attribute takes at least two different values, so finding "
                "someone's group does not reveal their sensitive value with certainty "
                "(it can still make one value likely).", k=11, l_diversity=2),
    PrivacyGoal("agreement", "Sharing under a data-use agreement",
                "The recipient signs not to re-identify anyone. Every released record "
                "looks like at least 4 others on the quasi-identifiers.", k=5),
    PrivacyGoal("partner", "Sharing with a research partner who holds the population",
                "The recipient may hold a register of the whole population. Each released "
                "record matches at least 20 people of the population (estimated from the "
                "sample with a population model), so the journalist risk is estimated at "
                "5 % or less.", k=20, needs_population=True),
)


def goal(key: str) -> PrivacyGoal:
    for g in GOALS:
        if g.key == key:
            return g
    raise KeyError(f"unknown privacy goal '{key}' (one of {', '.join(g.key for g in GOALS)})")
