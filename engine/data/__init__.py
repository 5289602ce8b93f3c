"""Data import, types and dictionary encoding."""
from engine.data.table import EncodedColumn, EncodedTable
from engine.data.csv_import import read_csv

__all__ = ["EncodedColumn", "EncodedTable", "read_csv"]
