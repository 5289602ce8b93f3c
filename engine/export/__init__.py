"""Where a release goes: the value mapping (``mapping``) and the export targets
(``targets``: CSV with options, Excel, Parquet, a database table). Heavy libraries
(openpyxl, pyarrow, SQLAlchemy) are imported inside the functions that need them."""
