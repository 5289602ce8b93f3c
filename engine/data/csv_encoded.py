"""CSV of dictionary-encoded columns, written vectorized and chunk by chunk.

A released table is a few label arrays per column and one code per cell. Each
distinct label is rendered once (quoted and escaped as Python's csv writer, which
pandas' ``to_csv`` uses, renders it, then encoded); a chunk of rows is then one
``take`` per column and one element-wise join in Arrow, written as raw bytes.
No Python object per cell, no DataFrame of the whole table: the bytes are those
``DataFrame.astype(str).to_csv`` writes (tested against it), at a fraction of the
time and memory.

`supports` says when this writer applies; other targets (one column, encodings
with a byte order mark or state such as UTF-16) go through pandas.
"""
from __future__ import annotations

import codecs
import csv
import io
import re
from collections.abc import Callable, Sequence

import numpy as np

from engine.data.arrow_numpy import binary, binary_scalar, from_numpy, write_values

#: codecs that encode each character on its own, without a byte order mark: a file is
#: the concatenation of its encoded values
STATELESS_CODECS = frozenset({"utf-8", "ascii", "iso8859-1", "cp1252", "iso8859-15"})
#: rows joined per Arrow call (about 10 MB of text for Adult's 15 columns)
CHUNK_ROWS = 131_072

#: ``column(name) -> (codes, labels)``: the codes of every row (or ``(rows, codes)``,
#: see `write_encoded_csv`) and the text of each code
ColumnSource = Callable[[str], tuple]


def supports(encoding: str, n_columns: int) -> bool:
    """Whether `write_encoded_csv` writes this target (else write it with pandas)."""
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        return False
    # one column: Python's csv writer quotes a lone empty field, a row-level rule
    return name in STATELESS_CODECS and n_columns > 1


def as_text(values) -> np.ndarray:
    """Values as the text ``DataFrame.astype(str).to_csv`` writes for them (missing: "").
    Strings are their own text (no pandas needed); other values are converted by
    pandas, as ``astype(str)`` converts them."""
    values = np.asarray(values, dtype=object)
    if all(type(v) is str for v in values.tolist()):
        return values
    import pandas as pd
    s = pd.Series(np.asarray(values, dtype=object), dtype=object).astype(str)
    return np.asarray(s.astype(object).where(s.notna(), ""), dtype=object)


def factorize_text(texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each of ``texts`` (strings, as `as_text` gives them) as a code and the distinct
    texts in order of first appearance: ``pandas.factorize(texts, sort=False)``, which
    numbers strings the same way (a hash of each, none missing), without importing
    pandas (0.3-0.4 s of CPU in a fresh process) for a scrubbed or pseudonymised column."""
    index: dict[str, int] = {}
    codes = np.fromiter((index.setdefault(t, len(index)) for t in texts.tolist()),
                        dtype=np.int32, count=len(texts))
    uniques = np.empty(len(index), dtype=object)
    uniques[:] = list(index)
    return codes, uniques


def _dialect(delimiter: str, quoting: int, quotechar: str, lineterminator: str) -> dict:
    return {"delimiter": delimiter, "quoting": quoting, "quotechar": quotechar,
            "lineterminator": lineterminator, "doublequote": True, "escapechar": None}


def render(texts: Sequence[str], dialect: dict) -> list[str]:
    """Each text as one field of a row of several (quoted and escaped as csv.writer does).

    Texts without a delimiter, quote character or line-break character are written as
    they are (or quoted whole, under QUOTE_ALL / QUOTE_NONNUMERIC for text); the others
    are rendered by csv.writer itself, in a row ``[text, text]`` whose first half is
    the field. Raises ``csv.Error`` as the writer does (QUOTE_NONE and a delimiter)."""
    special = re.compile("[" + re.escape(dialect["delimiter"] + dialect["quotechar"] + "\r\n"
                                         + dialect["lineterminator"]) + "]")
    quote_all = dialect["quoting"] in (csv.QUOTE_ALL, csv.QUOTE_NONNUMERIC)
    q = dialect["quotechar"]
    buf = io.StringIO()
    writer = csv.writer(buf, **dialect)
    tail = 1 + len(dialect["lineterminator"])
    out = []
    for text in texts:
        if special.search(text) is None:
            out.append(q + text + q if quote_all else text)
            continue
        buf.seek(0)
        buf.truncate()
        writer.writerow((text, text))
        line = buf.getvalue()
        out.append(line[:(len(line) - tail) // 2])
    return out


def header_line(names: Sequence[str], dialect: dict) -> str:
    buf = io.StringIO()
    csv.writer(buf, **dialect).writerow([str(n) for n in names])
    return buf.getvalue()


def write_encoded_csv(f, names: Sequence[str], n_rows: int, column: ColumnSource, *,
                      delimiter: str = ";", quoting: int = csv.QUOTE_MINIMAL,
                      quotechar: str = '"', encoding: str = "utf-8",
                      lineterminator: str = "\n", chunk_rows: int = CHUNK_ROWS,
                      report: Callable[[int, int], None] | None = None,
                      stop: Callable[[], bool] | None = None) -> bool:
    """Write the header and ``n_rows`` rows of ``names`` to the binary file ``f``.

    ``column(name)`` gives the column's codes and the text of each code (see
    `as_text`). The codes are one per row, or a pair ``(rows, codes)``: every row's
    item and each item's code (``codes[rows]``); consecutive columns whose pairs share
    one ``rows`` array are joined per item once (the released quasi-identifiers of a
    record are its distinct combination's), then per row. ``report(rows_written,
    n_rows)`` follows each chunk; when ``stop()`` returns True the writing ends early
    and False is returned. Raises ``UnicodeEncodeError`` for text the encoding cannot
    hold and ``csv.Error`` where the csv writer would (both before anything is
    written)."""
    import pyarrow.compute as pc
    dialect = _dialect(delimiter, quoting, quotechar, lineterminator)
    head = header_line(names, dialect).encode(encoding)
    # Arrow arrays and scalars built from buffers (`engine.data.arrow_numpy`): pyarrow's
    # own conversions would load pandas
    sep = binary_scalar(delimiter.encode(encoding))
    parts: list[list] = []  # [row index, [text per index entry, one per column]]
    for j, name in enumerate(names):
        codes, labels = column(name)
        text = render(labels, dialect)
        if j == len(names) - 1:
            text = [t + lineterminator for t in text]
        field = binary([t.encode(encoding) for t in text])
        if isinstance(codes, tuple):
            rows, codes = codes
            if parts and parts[-1][0] is rows:
                parts[-1][1].append(pc.take(field, from_numpy(codes)))
            else:
                parts.append([rows, [pc.take(field, from_numpy(codes))]])
        else:
            parts.append([codes, [field]])
    index = [p[0] for p in parts]
    texts = [p[1][0] if len(p[1]) == 1 else pc.binary_join_element_wise(*p[1], sep)
             for p in parts]
    f.write(head)
    for start in range(0, n_rows, chunk_rows):
        end = min(n_rows, start + chunk_rows)
        cells = [pc.take(t, from_numpy(i[start:end])) for t, i in zip(texts, index)]
        write_values(f, cells[0] if len(cells) == 1 else
                     pc.binary_join_element_wise(*cells, sep))
        if report is not None:
            report(end, n_rows)
        if stop is not None and stop():
            return False
    if report is not None and n_rows == 0:
        report(0, 0)
    return True
