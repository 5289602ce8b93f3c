"""The anonymize subcommand's release options: mapping (and, below, export targets,
report). ``engine.cli`` calls `add_arguments` on its parser and `write_documents`
after the search, so this file holds every option of release documents."""
from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(a: argparse.ArgumentParser) -> None:
    g = a.add_argument_group("release documents")
    g.add_argument("--mapping", type=Path, metavar="DIR|FILE.xlsx",
                   help="value mapping input -> released value per quasi-identifier: a folder "
                        "of CSV files, or one .xlsx with a sheet per attribute")


def write_documents(args, result) -> None:
    """Write what the options ask for, of the optimum (a result without one writes none)."""
    if result.optimum is None:
        return
    if args.mapping:
        from engine.export.mapping import value_mapping, write_mapping
        levels = [result.optimum.levels[q] for q in result.problem.qis]
        write_mapping(value_mapping(result.problem, levels, result.transformed(levels)),
                      args.mapping)
