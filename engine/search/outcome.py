"""The outcome every search returns."""
from __future__ import annotations

from dataclasses import dataclass

from engine.problem import Evaluation
from engine.solution_space import SolutionSpace

#: the searches whose result, when not cancelled, is proven to have the least loss
EXACT_ALGORITHMS = ("optimal", "exhaustive")


@dataclass
class SearchOutcome:
    space: SolutionSpace
    optimum: Evaluation | None
    checked: int
    elapsed_s: float
    cancelled: bool = False
    algorithm: str = ""


def better(a, b) -> bool:
    """Whether loss ``a`` is strictly lower than ``b`` (numbers or rank tuples)."""
    return b is None or a < b
