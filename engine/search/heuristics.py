"""Heuristic searches by job-file name, each ``f(problem, progress, cancel) -> SearchOutcome``."""
from __future__ import annotations

from engine.search.datafly import datafly_search
from engine.search.genetic import genetic_search
from engine.search.igreedy import igreedy_search
from engine.search.kgen import kgen_search
from engine.search.lightning import lightning_search
from engine.search.top_down import top_down_search

HEURISTICS = {
    "lightning": lightning_search,
    "top-down": top_down_search,
    "genetic": genetic_search,
    "kgen": kgen_search,
    "datafly": datafly_search,
    "igreedy": igreedy_search,
}
