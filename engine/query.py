"""Row selection by a query on attribute values (research subsets).

Grammar (case-insensitive keywords)::

    query      := or_expr
    or_expr    := and_expr ("or" and_expr)*
    and_expr   := not_expr ("and" not_expr)*
    not_expr   := "not" not_expr | "(" or_expr ")" | comparison
    comparison := attribute operator value
    operator   := "=" | "==" | "!=" | "<>" | "≠" | "<" | "<=" | "≤" | ">" | ">=" | "≥"
    attribute  := a name (letters, digits, "_", "-", ".") or a name in "double quotes"
                  or `backticks`
    value      := 'single quoted' | "double quoted" | a bare word or number

A comparison against a number compares numerically (rows whose value is not a
number never match ``<``/``>``, and match ``!=``); against text it compares
strings (``<``/``>`` lexicographically). Example: ``age > 30 and sex = 'Male'``.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from engine.data.table import EncodedTable
from engine.errors import JobError

_TOKEN = re.compile(r"""
    \s*(?:
      (?P<lpar>\() | (?P<rpar>\)) |
      (?P<op>==|!=|<>|<=|>=|≠|≤|≥|=|<|>) |
      '(?P<squote>(?:[^'\\]|\\.)*)' |
      "(?P<dquote>(?:[^"\\]|\\.)*)" |
      `(?P<btick>[^`]*)` |
      (?P<word>[^\s()=!<>≠≤≥'"`]+)
    )""", re.VERBOSE)

_OPS = {"==": "=", "<>": "!=", "≠": "!=", "≤": "<=", "≥": ">="}


def _tokenize(query: str) -> list[tuple[str, str]]:
    tokens = []
    pos = 0
    query = query.rstrip()
    while pos < len(query):
        m = _TOKEN.match(query, pos)
        if not m or m.end() == pos:
            raise JobError(f"query: cannot read '{query[pos:].strip()}' (position {pos + 1})")
        kind = m.lastgroup
        text = m.group(kind)
        if kind in ("squote", "dquote"):
            text = re.sub(r"\\(.)", r"\1", text)
        if kind == "word" and text.lower() in ("and", "or", "not"):
            kind = text.lower()
        tokens.append((kind, text))
        pos = m.end()
    return tokens


class _Parser:
    def __init__(self, tokens, table: EncodedTable):
        self.tokens = tokens
        self.i = 0
        self.table = table

    def peek(self):
        return self.tokens[self.i] if self.i < len(self.tokens) else (None, None)

    def take(self, *kinds):
        kind, text = self.peek()
        if kind not in kinds:
            got = f"'{text}'" if text is not None else "the end of the query"
            raise JobError(f"query: expected {' or '.join(kinds)} but found {got}")
        self.i += 1
        return text

    def parse(self) -> np.ndarray:
        mask = self.or_expr()
        if self.i != len(self.tokens):
            raise JobError(f"query: unexpected '{self.tokens[self.i][1]}'")
        return mask

    def or_expr(self):
        mask = self.and_expr()
        while self.peek()[0] == "or":
            self.i += 1
            mask = mask | self.and_expr()
        return mask

    def and_expr(self):
        mask = self.not_expr()
        while self.peek()[0] == "and":
            self.i += 1
            mask = mask & self.not_expr()
        return mask

    def not_expr(self):
        kind, _ = self.peek()
        if kind == "not":
            self.i += 1
            return ~self.not_expr()
        if kind == "lpar":
            self.i += 1
            mask = self.or_expr()
            self.take("rpar")
            return mask
        return self.comparison()

    def comparison(self):
        name = self.take("word", "dquote", "btick")
        op = self.take("op")
        op = _OPS.get(op, op)
        kind, value = self.peek()
        if kind not in ("word", "squote", "dquote"):
            raise JobError(f"query: expected a value after '{name} {op}'")
        self.i += 1
        if name not in self.table:
            raise JobError(f"query: '{name}' is not a column of the data "
                           f"(columns: {', '.join(self.table.names)})")
        return compare(self.table.column(name).values(), op, value,
                       numeric=kind == "word" and _is_number(value))


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def compare(values: np.ndarray, op: str, literal: str, numeric: bool) -> np.ndarray:
    """Row mask of ``values <op> literal``."""
    if numeric:
        nums = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(float)
        x = float(literal)
        with np.errstate(invalid="ignore"):
            result = {"=": nums == x, "!=": ~(nums == x), "<": nums < x, "<=": nums <= x,
                      ">": nums > x, ">=": nums >= x}[op]
        return np.asarray(result, dtype=bool)
    strings = np.asarray(values, dtype=object).astype(str)
    return {"=": strings == literal, "!=": strings != literal, "<": strings < literal,
            "<=": strings <= literal, ">": strings > literal, ">=": strings >= literal}[op]


def evaluate_query(query: str, table: EncodedTable) -> np.ndarray:
    """Boolean mask of the rows of ``table`` that the query selects."""
    if not query or not query.strip():
        raise JobError("query: the query is empty")
    return _Parser(_tokenize(query), table).parse()


def query_columns(query: str) -> list[str]:
    """The column names a query compares (each name precedes an operator)."""
    tokens = _tokenize(query or "")
    return list(dict.fromkeys(text for (kind, text), (nxt, _) in zip(tokens, tokens[1:])
                              if nxt == "op" and kind in ("word", "dquote", "btick")))
