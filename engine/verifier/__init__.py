"""The independent verifier's own rooms: everything ``engine.verify`` needs to recount
a released file and judge it, written apart from the engine's search path.

- ``counts``: the released table's classes and sensitive-value counts, chunk by chunk;
- ``checks``: one check per privacy model on those counts (EMDs by plain loops);
- ``order``: the value order of ordered t-closeness;
- ``estimators``: population-uniqueness estimators and k-map's derived k;
- ``columns``: microaggregated, coded and locally recoded quasi-identifier columns;
- ``formula_cells``: a CSV export's quoted formula cells read back as the released values;
- ``source``: the job's input data: the research subset resolved on it, the
  population of each released class;
- ``job``: what the verifier reads of a job (roles, models, population);
- ``parquet_rows`` and ``csv_rows``: a large release's distinct rows counted on every
  core (Parquet row groups, CSV pieces cut at record boundaries, each parsed and
  grouped by Arrow in a pool of threads), with the identifier scan in the same
  reading.

Nothing here, nor in ``engine.verify``, imports the engine's search path, directly or
through another module: no problem, classes, search, kernel, output, privacy,
lattice, metrics, estimators, solution_space, transform, subset, config, project,
backends, result or analysis (tests/test_import_contracts.py:
test_the_verifier_is_independent, which computes the transitive import closure).
Where the verifier needs a definition the engine also has (value order, EMD,
estimators, subset resolution, coding rules, pseudonym forms), it has its own,
checked against the engine's on random tables
(tests/engine/test_verifier_independent.py).

Shared on purpose, each for being the job's or the file's definition rather than a
computation the verifier checks:

- the job, as ``engine.project.job_file`` reads it (by the caller: the command line
  passes it in): the verifier must check the job the user wrote; it reads the job's
  plain fields only (attribute roles, hierarchies' rows, model names and parameters);
- ``engine.markers``: the suppression marker (one definition, a job setting);
- ``engine.errors``: the exception types (exit codes are a contract);
- ``engine.data.csv_arrow`` and ``engine.data.csv_distinct`` (and through them
  ``engine.data.csv_import``, ``engine.data.table``): reading a CSV file's records
  (Arrow's parser; the distinct rows with their counts), and ``engine.data.readers``
  (an input that is not CSV: Excel, Parquet, statistical files, databases). They
  parse; the counting and judging are the verifier's (``csv_rows`` uses
  ``csv_distinct``'s labels and merge of coded rows, and ``csv_arrow``'s parse options,
  so that both readings of a CSV file read it alike);
- ``engine.query``: the research-subset query language of the job file, evaluated on
  each chunk of the input (a second parser would be a second language).
- ``engine.identifiers``: what a direct identifier is (the patterns with their
  checksums, the shipped name list, the job's identifying values): `verify` runs the
  same scan on the released file that refused the release before it was written
  (issue 25); a second list would be a second definition of an identifier.
  ``csv_rows`` hands it the values it reads (each distinct value once, with its
  records and first row): the scan's definition, the verifier's reading.

Not used: DuckDB's CSV reader and grouping for a CSV release. Measured on the 10 M-row
Adult-like release, its grouped count alone took 5.5-6.3 s of CPU against about 4.3 s
for Arrow's parsing and grouping in pieces (tests/benchmarks/results/
2026-11-28-cluster.md); and one parser, with the guards that make it read a file as
pandas does (`engine.data.csv_distinct`), keeps both readings of a CSV file alike.
"""
