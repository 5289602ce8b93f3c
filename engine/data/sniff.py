"""What a data file is: its kind by name (`guess_kind`) and by its first bytes
(`binary_kind`), so that a workbook, a database or a Parquet file given where text
is expected is named for what it is (not "cannot be decoded")."""
from __future__ import annotations

from pathlib import Path

EXCEL_SUFFIXES = (".xlsx", ".xlsm", ".xls")
PARQUET_SUFFIXES = (".parquet", ".pq")
SQLITE_SUFFIXES = (".sqlite", ".sqlite3", ".db")
CSV_SUFFIXES = (".csv", ".tsv", ".txt", ".dat")
#: statistical packages' files, read by pyreadstat: suffix -> kind
STATISTICAL_SUFFIXES = {".sav": "spss", ".zsav": "spss", ".dta": "stata",
                        ".sas7bdat": "sas", ".xpt": "xport"}
#: kinds of data source: what reads them
KINDS = ("csv", "excel", "parquet", "sql", "spss", "stata", "sas", "xport")


def guess_kind(path: str | Path) -> str:
    """The kind of a file by its name (``csv`` for any other)."""
    suffix = Path(str(path)).suffix.lower()
    if suffix in EXCEL_SUFFIXES:
        return "excel"
    if suffix in PARQUET_SUFFIXES:
        return "parquet"
    if suffix in SQLITE_SUFFIXES:
        return "sql"
    return STATISTICAL_SUFFIXES.get(suffix, "csv")


#: leading bytes -> kind (engine.data.readers.KINDS, or "zip" for another zip archive)
_MAGIC = (
    (b"SQLite format 3\x00", "sql"),
    (b"PAR1", "parquet"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "excel"),  # OLE2: an .xls workbook (or .doc)
    (b"$FL2", "spss"), (b"$FL3", "spss"),
    (b"<stata_dta>", "stata"),
    (b"HEADER RECORD*******LIBRARY HEADER RECORD", "xport"),
    (b"HEADER RECORD*******LIBV8   HEADER RECORD", "xport"),
)
#: leading bytes of files that hold no table at all -> kind (named in `describe`)
_NOT_DATA = (
    (b"\x89PNG\r\n\x1a\n", "png"), (b"\xff\xd8\xff", "jpeg"), (b"GIF87a", "gif"),
    (b"GIF89a", "gif"), (b"%PDF-", "pdf"), (b"\x1f\x8b", "gzip"), (b"BM", None),
)
#: bytes 12..31 of every SAS7BDAT file
_SAS_MAGIC = b"\xc2\xea\x81\x60\xb3\x14\x11\xcf\xbd\x92\x08\x00\x09\xc7\x31\x8c\x18\x1f\x10\x11"


def binary_kind(path: str | Path) -> str | None:
    """The kind of a binary data file by its content ("excel", "sql", "parquet", "spss",
    "stata", "sas", "xport", an ARX project "arx", another "zip", or a file of no table:
    an image, a PDF...), or None for text and anything unknown."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError:
        return None
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if head[12:32] == _SAS_MAGIC:
        return "sas"
    for magic, kind in _NOT_DATA:
        if kind and head.startswith(magic):
            return kind
    if head.startswith(b"PK\x03\x04"):
        return _zip_kind(path)
    return None


def _zip_kind(path: str | Path) -> str:
    """A workbook ("excel"), an ARX project ("arx") or another zip archive ("zip")."""
    import zipfile
    try:
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
    except (OSError, zipfile.BadZipFile):
        return "zip"
    if any(n.startswith("xl/") for n in names):
        return "excel"
    if {"project.xml", "data/input.csv"} <= names:
        return "arx"
    return "zip"


#: what a kind is called, and the file name suffix it is read by
_NAMES = {"excel": ("an Excel workbook", ".xlsx (.xls for the older format)"),
          "parquet": ("a Parquet file", ".parquet"), "sql": ("a SQLite database", ".sqlite"),
          "spss": ("an SPSS .sav file", ".sav"), "stata": ("a Stata .dta file", ".dta"),
          "sas": ("a SAS .sas7bdat file", ".sas7bdat"),
          "xport": ("a SAS transport .xpt file", ".xpt"),
          "zip": ("a zip archive", ""), "csv": ("delimited text", ".csv"),
          "png": ("a PNG image", None), "jpeg": ("a JPEG image", None),
          "gif": ("a GIF image", None), "pdf": ("a PDF document", None),
          "gzip": ("a gzip-compressed file", ""), "arx": ("an ARX project", "")}

#: what Anonymist reads, for the message about a file that holds no table
READABLE = ("delimited text (.csv, .tsv, .txt), Excel (.xlsx, .xls), Parquet, SPSS (.sav), "
            "Stata (.dta), SAS (.sas7bdat, .xpt) or a SQLite database")


def describe(kind: str) -> str:
    """A kind of file in words ("an Excel workbook")."""
    return _NAMES.get(kind, (kind, ""))[0]


def not_text_error(path: Path, kind: str) -> str:
    """The message for a binary file given as delimited text."""
    name, suffix = _NAMES.get(kind, (kind, ""))
    if suffix is None:  # an image, a document: no table in it at all
        return f"{path.name} is {name}, not a data table: Anonymist reads {READABLE}"
    hint = (f": name it with {suffix} so that it is read as one" if suffix
            else ": turn it into a job with 'anonymist import-arx'" if kind == "arx"
            else ": give the data file inside it")
    return f"{path.name} is {name}, not a delimited text file{hint}"
