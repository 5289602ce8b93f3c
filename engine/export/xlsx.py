"""Excel (.xlsx) of dictionary-encoded columns, written vectorized and chunk by chunk.

A released table is a few labels per column and one code per cell. Each distinct label
is rendered once as the XML of an inline-string cell (as openpyxl's write-only mode
renders it: ``<c r="B7" t="inlineStr"><is><t>text</t></is></c>``); a chunk of rows is
then one ``take`` per column and one element-wise join in Arrow, streamed into the
zip member. The worksheet's XML is the one openpyxl writes for the same table (tested
against it), at a fraction of the time: no Python object per cell.

Every cell is text (never a number or a formula: a value starting with ``=`` stays
text). Values Excel cannot hold are refused with the column, row and value named:
control characters XML does not allow, and more than 32,767 characters in a cell.

`read_own_xlsx` reads such a file back (for ``verify`` and the report) with the same
Arrow kernels, checking every cell's reference against its place; any other file, or
one saved again by another program, is left to openpyxl.
"""
from __future__ import annotations

import re
import zipfile
from collections.abc import Callable, Sequence

import numpy as np

from engine.errors import DataError

MAX_ROWS = 1_048_575            # one row of the sheet's 1,048,576 is the header
MAX_CELL_CHARS = 32_767
CHUNK_ROWS = 65_536
#: deflate level: 3 compresses the repetitive sheet XML to 1.17x level 6's size in a
#: third of the time (Adult-like 300k rows: 11.0 MB in 0.45 s, 9.4 MB in 1.5 s)
ZIP_LEVEL = 3
#: characters XML 1.0 does not allow (openpyxl's ILLEGAL_CHARACTERS_RE)
ILLEGAL = re.compile(r"[\000-\010]|[\013-\014]|[\016-\037]")

#: ``column(name) -> (codes, labels)``: every row's code (or ``(rows, codes)``: every
#: row's item and each item's code) and each code's text, as `engine.data.csv_encoded`
ColumnSource = Callable[[str], tuple]

SHEET_HEAD = (
    '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    '<sheetPr><outlinePr summaryBelow="1" summaryRight="1" /><pageSetUpPr /></sheetPr>'
    '<sheetViews><sheetView workbookViewId="0"><selection activeCell="A1" sqref="A1" />'
    '</sheetView></sheetViews><sheetFormatPr baseColWidth="8" defaultRowHeight="15" />'
    '<sheetData>')
SHEET_TAIL = ('</sheetData><pageMargins left="0.75" right="0.75" top="1" bottom="1" '
              'header="0.5" footer="0.5" /></worksheet>')
NS_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
NS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
NS_PKG = "http://schemas.openxmlformats.org/package/2006/relationships"
CT = "application/vnd.openxmlformats-officedocument"
CONTENT_TYPES = (
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    'relationships+xml" /><Default Extension="xml" ContentType="application/xml" />'
    f'<Override PartName="/xl/styles.xml" ContentType="{CT}.spreadsheetml.styles+xml" />'
    '<Override PartName="/docProps/core.xml" ContentType="application/vnd.'
    'openxmlformats-package.core-properties+xml" />'
    f'<Override PartName="/docProps/app.xml" ContentType="{CT}.extended-properties+xml" />'
    '<Override PartName="/xl/worksheets/sheet1.xml" '
    f'ContentType="{CT}.spreadsheetml.worksheet+xml" />'
    '<Override PartName="/xl/workbook.xml" '
    f'ContentType="{CT}.spreadsheetml.sheet.main+xml" /></Types>')
ROOT_RELS = (
    f'<Relationships xmlns="{NS_PKG}">'
    f'<Relationship Type="{NS_REL}/officeDocument" Target="xl/workbook.xml" Id="rId1" />'
    '<Relationship Type="http://schemas.openxmlformats.org/package/2006/relationships/'
    'metadata/core-properties" Target="docProps/core.xml" Id="rId2" />'
    f'<Relationship Type="{NS_REL}/extended-properties" Target="docProps/app.xml" '
    'Id="rId3" /></Relationships>')
WORKBOOK_RELS = (
    f'<Relationships xmlns="{NS_PKG}">'
    f'<Relationship Type="{NS_REL}/worksheet" Target="/xl/worksheets/sheet1.xml" '
    'Id="rId1" />'
    f'<Relationship Type="{NS_REL}/styles" Target="styles.xml" Id="rId2" />'
    '</Relationships>')
STYLES = (
    f'<styleSheet xmlns="{NS_MAIN}"><numFmts count="0" /><fonts count="1"><font>'
    '<name val="Calibri" /><family val="2" /><sz val="11" /></font></fonts>'
    '<fills count="2"><fill><patternFill /></fill><fill><patternFill patternType="gray125" />'
    '</fill></fills><borders count="1"><border><left /><right /><top /><bottom /><diagonal />'
    '</border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" '
    'borderId="0" /></cellStyleXfs><cellXfs count="1"><xf numFmtId="0" fontId="0" '
    'fillId="0" borderId="0" xfId="0" /></cellXfs><cellStyles count="1">'
    '<cellStyle name="Normal" xfId="0" builtinId="0" /></cellStyles></styleSheet>')
APP = ('<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/'
       'extended-properties"><Application>Anonymist</Application></Properties>')


def workbook_xml(sheet: str) -> str:
    return (f'<workbook xmlns:r="{NS_REL}" xmlns="{NS_MAIN}"><workbookPr /><bookViews>'
            '<workbookView activeTab="0" /></bookViews><sheets>'
            f'<sheet name="{escape(sheet)}" sheetId="1" state="visible" r:id="rId1" />'
            '</sheets><calcPr calcId="124519" fullCalcOnLoad="1" /></workbook>')


def core_xml(created: str) -> str:
    return ('<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/'
            'metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" '
            'xmlns:dcterms="http://purl.org/dc/terms/" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
            '<dc:creator>Anonymist</dc:creator>'
            f'<dcterms:created xsi:type="dcterms:W3CDTF">{created}</dcterms:created>'
            f'<dcterms:modified xsi:type="dcterms:W3CDTF">{created}</dcterms:modified>'
            '</cp:coreProperties>')


def escape(text: str) -> str:
    """Text content as XML: ``& < >`` as entities, a carriage return as ``&#13;`` (a
    raw one would be read back as a line feed)."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\r", "&#13;"))


def column_letter(j: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA, ..."""
    out = ""
    j += 1
    while j:
        j, r = divmod(j - 1, 26)
        out = chr(65 + r) + out
    return out


def cell_tail(text: str) -> str:
    """An inline-string cell after its reference: ``" t="inlineStr"...</c>``."""
    if text == "":
        return '" t="inlineStr" />'
    space = ' xml:space="preserve"' if text != text.strip() else ""
    return f'" t="inlineStr"><is><t{space}>{escape(text)}</t></is></c>'


def check_labels(labels, name: str, codes, where: str) -> None:
    """Refuse a label Excel cannot hold, naming the column, the first row with it and
    the value (``codes`` None: the labels are the header's column names)."""
    for code, text in enumerate(labels):
        bad = ILLEGAL.search(text)
        if bad is None and len(text) <= MAX_CELL_CHARS:
            continue
        if codes is None:
            at = "column name"
        else:
            row = _first_row(codes, code)
            if row is None:
                continue  # a label no row uses
            at = f"column '{name}', data row {row + 1}: the value"
        why = (f"holds the control character {bad.group()!r}, which Excel files cannot "
               f"store" if bad is not None else
               f"has {len(text):,} characters, more than Excel's {MAX_CELL_CHARS:,} per cell")
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise DataError(f"{where}: {at} {shown!r} {why}; export CSV or Parquet instead")


def _first_row(codes, code: int) -> int | None:
    if isinstance(codes, tuple):
        rows, item_codes = codes
        items = np.flatnonzero(np.asarray(item_codes) == code)
        hits = np.flatnonzero(np.isin(rows, items)) if len(items) else []
    else:
        hits = np.flatnonzero(np.asarray(codes) == code)
    return int(hits[0]) if len(hits) else None


def write_encoded_xlsx(path, names: Sequence[str], n_rows: int, column: ColumnSource, *,
                       sheet: str = "anonymized", where: str | None = None,
                       chunk_rows: int = CHUNK_ROWS,
                       report: Callable[[int, int], None] | None = None,
                       stop: Callable[[], bool] | None = None) -> bool:
    """Write the header and ``n_rows`` rows of ``names`` as one sheet of text cells to
    the file ``path``. ``column(name)`` gives the codes and each code's text (see
    ``ColumnSource``). ``report(rows_written, n_rows)`` follows each chunk; when
    ``stop()`` returns True the writing ends early and False is returned (the caller
    removes the file). Raises ``DataError`` (naming ``where``) for more rows than a
    sheet holds and for values Excel cannot store, before anything is written."""
    import datetime

    import pyarrow.compute as pc

    from engine.data.arrow_numpy import binary, binary_scalar, from_numpy, write_values
    where = where or str(path)
    if n_rows > MAX_ROWS:
        raise DataError(f"{where}: {n_rows:,} rows do not fit an Excel sheet "
                        f"({MAX_ROWS:,} at most): export CSV or Parquet")
    letters = [column_letter(j) for j in range(len(names))]
    check_labels([str(n) for n in names], "", None, where)
    head = ['<row r="1">'] + [f'<c r="{x}1{cell_tail(str(n))}'
                              for x, n in zip(letters, names)] + ["</row>"]
    # per column: the cell XML after its reference, per row (or per item, then per row)
    parts: list[tuple] = []
    widest = 0
    for name in names:
        codes, labels = column(name)
        check_labels(labels, str(name), codes, where)
        tails = [cell_tail(t).encode("utf-8") for t in labels]
        widest += max((len(t) for t in tails), default=0)
        field = binary(tails)  # Arrow arrays from buffers: pyarrow's shim loads pandas
        if isinstance(codes, tuple):
            rows, codes = codes
            parts.append((rows, pc.take(field, from_numpy(np.asarray(codes)))))
        else:
            parts.append((codes, field))
    # a worksheet over 4 GB needs zip64 (the size is not known before it is written)
    big = n_rows * (widest + len(names) * 14 + 24) > 2**31
    created = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    done = True
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED,
                         compresslevel=ZIP_LEVEL) as z:
        z.writestr("[Content_Types].xml", CONTENT_TYPES)
        z.writestr("_rels/.rels", ROOT_RELS)
        z.writestr("docProps/app.xml", APP)
        z.writestr("docProps/core.xml", core_xml(created))
        z.writestr("xl/workbook.xml", workbook_xml(sheet))
        z.writestr("xl/_rels/workbook.xml.rels", WORKBOOK_RELS)
        z.writestr("xl/styles.xml", STYLES)
        with z.open("xl/worksheets/sheet1.xml", "w", force_zip64=big) as f:
            f.write((SHEET_HEAD + "".join(head)).encode("utf-8"))
            starts = [binary_scalar(f'<c r="{x}'.encode()) for x in letters]
            open_row, close_tag = binary_scalar(b'<row r="'), binary_scalar(b'">')
            close_row, empty = binary_scalar(b"</row>"), binary_scalar(b"")
            for start in range(0, n_rows, chunk_rows):
                end = min(n_rows, start + chunk_rows)
                number = binary([b"%d" % i for i in range(start + 2, end + 2)])
                pieces = [open_row, number, close_tag]
                for (index, field), first in zip(parts, starts):
                    pieces += [first, number,
                               pc.take(field, from_numpy(np.asarray(index[start:end])))]
                pieces.append(close_row)
                write_values(f, pc.binary_join_element_wise(*pieces, empty))
                if report is not None:
                    report(end, n_rows)
                if stop is not None and stop():
                    done = False
                    break
            f.write(SHEET_TAIL.encode("utf-8"))
    if report is not None and n_rows == 0:
        report(0, 0)
    return done


#: the parts `write_encoded_xlsx` writes: a file with others is not its own
OWN_PARTS = frozenset({"[Content_Types].xml", "_rels/.rels", "docProps/app.xml",
                       "docProps/core.xml", "xl/workbook.xml", "xl/_rels/workbook.xml.rels",
                       "xl/styles.xml", "xl/worksheets/sheet1.xml"})
#: one cell after its ``<c r="``, as `cell_tail` writes it (Arrow's RE2 syntax)
CELL = (r'^(?P<col>[A-Z]+)(?P<row>\d+)" t="inlineStr"(?: />|><is><t(?: xml:space="preserve")?>'
        r'(?P<text>[^<]*)</t></is></c>)(?:</row>(?:<row r="\d+">)?)?$')
ENTITIES = (("&lt;", "<"), ("&gt;", ">"), ("&#13;", "\r"), ("&amp;", "&"))  # &amp; last
READ_BLOCK = 1 << 24


def read_own_xlsx(path):
    """The table (header and text cells, a DataFrame of str) of a file
    `write_encoded_xlsx` wrote, read vectorized in blocks of the worksheet; None for any
    other file, or one changed since (e.g. saved again by Excel): read it with openpyxl.
    Every cell's reference is checked against its place, so a file is read this way
    only when it is exactly what the writer writes."""
    import pandas as pd
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError):
        return None
    with z:
        if set(z.namelist()) != OWN_PARTS or z.read("docProps/app.xml") != APP.encode():
            return None
        reader = _OwnSheet()
        with z.open("xl/worksheets/sheet1.xml") as f:
            if f.read(len(SHEET_HEAD)) != SHEET_HEAD.encode():
                return None
            tail, buffer = SHEET_TAIL.encode(), b""
            while True:
                block = f.read(READ_BLOCK)
                buffer += block
                if block:
                    cut = buffer.rfind(b"</row>")
                    if cut < 0:
                        continue
                    cut += len(b"</row>")
                elif not buffer.endswith(tail):
                    return None
                else:
                    cut = len(buffer) - len(tail)
                piece, buffer = buffer[:cut], buffer[cut:]
                if piece and not reader.add(piece):
                    return None
                if not block:
                    break
    if reader.names is None:
        return None
    columns = reader.columns()
    frame = pd.DataFrame({j: c for j, c in enumerate(columns)}, dtype=object)
    frame.columns = reader.names
    return frame


class _OwnSheet:
    """The rows of `write_encoded_xlsx`'s worksheet, a piece of whole rows at a time."""

    def __init__(self):
        self.names: list[str] | None = None
        self.letters = None
        self.next_row = 1
        self.parts: list = []

    def add(self, piece: bytes) -> bool:
        """Parse a piece of whole rows; False when it is not the writer's XML."""
        import pyarrow as pa
        import pyarrow.compute as pc
        try:
            text = pa.array([piece], pa.binary()).cast(pa.string())
        except pa.ArrowInvalid:
            return False
        cells = pc.list_flatten(pc.split_pattern(text, '<c r="'))
        if len(cells) < 2 or cells[0].as_py() != f'<row r="{self.next_row}">':
            return False
        cells = cells.slice(1)
        found = pc.extract_regex(cells, CELL)
        if found.null_count:
            return False
        values = found.field("text")
        if self.names is None:  # the header: the first row's cells
            n = int(pc.sum(pc.equal(found.field("row"), "1")).as_py())
            self.names = [_unescape_one(v) for v in values.slice(0, n).to_pylist()]
            self.letters = pa.array([column_letter(j) for j in range(n)])
            if n == 0:
                return False
        n = len(self.names)
        if len(cells) % n:
            return False
        rows = len(cells) // n
        expected_rows = np.repeat(np.arange(self.next_row, self.next_row + rows), n)
        if not (pc.all(pc.equal(found.field("col"), pa.concat_arrays([self.letters] * rows)))
                .as_py() and np.array_equal(
                    found.field("row").to_numpy(zero_copy_only=False).astype(np.int64),
                    expected_rows)):
            return False
        amps = pc.sum(pc.count_substring(values, "&")).as_py() or 0
        if amps:
            known = sum(pc.sum(pc.count_substring(values, e)).as_py() or 0
                        for e, _ in ENTITIES)
            if known != amps:
                return False
            for entity, char in ENTITIES:
                values = pc.replace_substring(values, entity, char)
        start = n if self.next_row == 1 else 0  # the header is not a data row
        index = np.arange(start, len(values)).reshape(-1, n)
        self.parts.append([pc.take(values, pa.array(index[:, j])) for j in range(n)])
        self.next_row += rows
        return True

    def columns(self) -> list[np.ndarray]:
        import pyarrow as pa
        out = []
        for j in range(len(self.names)):
            chunks = [p[j] for p in self.parts]
            out.append(pa.chunked_array(chunks, pa.string()).to_numpy().astype(object))
        return out


def _unescape_one(text: str) -> str:
    for entity, char in ENTITIES:
        text = text.replace(entity, char)
    return text
