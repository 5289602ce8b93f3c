"""``anonymist hierarchy build``: one of the app's builders run on a data file's column,
the hierarchy written as CSV (what the hierarchy wizard's Save does).

The builder is named with its keys (``--builder intervals --set 'levels=[[2],[2]]'``),
or read from a specification the wizard saved (``--spec age.json``); keys left out
take the wizard's first proposal (``engine.hierarchy.from_spec``).
"""
from __future__ import annotations

import tomllib
from pathlib import Path

from engine.errors import AnonymistError
from engine.hierarchy.from_spec import build_from_spec, check_builder_table


def parse_settings(pairs: list[str]) -> dict:
    """``KEY=VALUE`` pairs; a value is read as TOML (numbers, true, [[2], [2]],
    { lower = 0, upper = 10 }), else kept as text."""
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise AnonymistError(f"--set {pair!r} is not KEY=VALUE")
        key, value = (part.strip() for part in pair.split("=", 1))
        try:
            out[key] = tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            out[key] = value
    return out


def spec_table(builder: str | None, settings: list[str], spec_file: Path | None) -> dict:
    """The builder table of the command's options, checked."""
    if (builder is None) == (spec_file is None):
        raise AnonymistError("give --builder NAME (with --set KEY=VALUE) or --spec FILE.json "
                             "(a specification the hierarchy wizard saved), one of them")
    if spec_file is not None:
        from engine.hierarchy.builders import load_spec
        table = load_spec(spec_file).to_json()
        table.pop("version", None)
    else:
        table = {"builder": builder}
    table.update(parse_settings(settings))
    return check_builder_table(table, "the command's")


def read_column(data: Path, attribute: str, sheet: str | None = None, table: str = "",
                query: str = "", delimiter: str | None = None, encoding: str | None = None):
    """The attribute's column of a data file of any kind, encoded."""
    from engine.data.csv_import import read_csv
    from engine.data.readers import read_file
    from engine.data.sniff import guess_kind
    from engine.data.table import EncodedTable
    kind = guess_kind(data)
    if kind == "csv":
        frame = read_csv(data, delimiter=delimiter, encoding=encoding, categorical=True)
    else:
        frame = read_file(data, kind, sheet=sheet, table=table, query=query)
    if attribute not in frame.columns:
        raise AnonymistError(f"{data.name} has no column '{attribute}' (its columns: "
                             f"{', '.join(map(str, frame.columns))})")
    return EncodedTable.from_dataframe(frame[[attribute]]).column(attribute)


def build_hierarchy_file(data: Path, attribute: str, spec: dict, output: Path,
                         data_type: str | None = None, fmt: str | None = None,
                         output_delimiter: str = ";", **read_options):
    """Build the hierarchy of ``attribute`` from ``data`` and write it to ``output``."""
    from engine.hierarchy.csv_io import write_hierarchy
    column = read_column(data, attribute, **read_options)
    h = build_from_spec(spec, column, attribute, data_type, fmt)
    write_hierarchy(h, output, output_delimiter)
    return h
