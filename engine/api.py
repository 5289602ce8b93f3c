"""The pandas-friendly entry point: ``engine.anonymize(data, config)``."""
from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from engine.config import Job
from engine.data.csv_import import read_csv_encoded
from engine.data.table import EncodedTable
from engine.errors import AnonymistError, Cancelled, DataError, JobError
from engine.problem import Problem
from engine.pseudonyms import check_keys
from engine.backends.locations import is_uri
from engine.project.job_data import STREAMED, data_kind
from engine.project.job_file import job_from_dict, load_encoded, load_job
from engine.result import AnonymizationResult
from engine.progress import Reporter
from engine.search import CancelCheck, ProgressCallback, run_search


def as_job(config) -> Job:
    """A ``Job`` from a Job, a TOML-shaped dict, or a path to a job file."""
    if isinstance(config, Job):
        return config
    if isinstance(config, dict):
        return job_from_dict(config)
    if isinstance(config, (str, Path)):
        return load_job(config)
    raise JobError(f"cannot use a {type(config).__name__} as a job configuration")


def as_table(data, job: Job) -> EncodedTable:
    """An encoded table from a DataFrame, a CSV path, an EncodedTable, or the job's data."""
    if isinstance(data, EncodedTable):
        return data
    if data is None or isinstance(data, (str, Path)):
        if data_kind(job, data) not in ("csv",):
            return _whole_table(job, data)
        if data is None:
            table, path = load_encoded(job), job.resolve(job.data.path)
        else:
            table, path = read_csv_encoded(data, delimiter=job.data.delimiter,
                                           encoding=job.data.encoding, header=True), data
        if table.n_rows == 0:
            raise DataError(f"data file {path} has no records (a header alone?)")
        return table
    pd = sys.modules.get("pandas")  # a DataFrame implies pandas is loaded
    if pd is not None and isinstance(data, pd.DataFrame):
        return EncodedTable.from_dataframe(data)
    raise JobError(f"cannot anonymize a {type(data).__name__}: give a DataFrame or a path")


def _whole_table(job: Job, data) -> EncodedTable:
    """The job's data (or ``data``, a path) of a kind read whole: Parquet, a workbook, a
    statistics file, a database."""
    from engine.project.job_file import load_data
    if data is None:
        where = job.data.url or job.resolve(job.data.path)
        table = EncodedTable.from_dataframe(load_data(job))
    else:
        from engine.project.job_data import read_frame
        where = data
        if data_kind(job, data) == "parquet":
            from engine.data.readers import read_parquet
            table = EncodedTable.from_dataframe(read_parquet(data))
        else:
            table = EncodedTable.from_dataframe(read_frame(job, data))
    if table.n_rows == 0:
        raise DataError(f"data {where} has no records")
    return table


def check_callables(**arguments) -> None:
    """A ``TypeError`` naming the argument that is neither None nor callable (a
    ``progress=5`` fails here, not deep inside the search)."""
    for name, value in arguments.items():
        if value is not None and not callable(value):
            raise TypeError(f"{name} must be a function (or None), not "
                            f"{type(value).__name__} {value!r:.40}")


def backend_progress(progress: ProgressCallback | None, cancel: CancelCheck | None = None):
    """A backend's ``(phase, share)`` reports ("aggregate", "release") as ``Progress``
    for ``progress`` (rate-limited; None without a callback)."""
    if progress is None:
        return None
    phases = Reporter(progress, 0, cancel)
    return lambda phase, share: phases.report(0, None, None, force=share in (None, 0.0, 1.0),
                                              phase=phase, done=share)


def planned_backend(job: Job, data: str | Path | None = None,
                    outputs: dict[str, object] | None = None) -> str:
    """The backend a run of ``job`` on ``data`` (default: the job's) will use, checked
    against what the job and ``outputs`` need (``engine.backends.capabilities``) before
    anything is opened or started: the command line calls it first, ``prepare`` again."""
    from engine.backends import capabilities, choose_backend, data_source
    if is_uri(data if data is not None else job.data.path):
        source = data_source(job, data)
    elif job.data.url or data_kind(job, data) not in STREAMED:
        capabilities.check("memory", job, outputs)
        if job.engine.backend not in ("auto", "memory"):
            where = str(data) if data is not None else \
                ("[data] url" if job.data.url else f"[data] path '{job.data.path}'")
            capabilities.check(job.engine.backend, job, {"other-data": where})
        return "memory"
    else:
        source = data_source(job, data)
    name = choose_backend(job, source)
    if not source.files:
        outputs = {**(outputs or {}), "uri": source.path}
    capabilities.check(name, job, outputs)
    return name


def prepare(data, config, phase_progress=None, cancel: CancelCheck | None = None,
            backend_hook=None) -> Problem:
    """The job bound to its data. Data in a file (the job's, or ``data`` as a path) is
    counted by the backend ``[engine] backend`` chooses: in memory, or by DuckDB or
    Spark into a frequency table (``problem.backend`` then writes the release).
    ``phase_progress(phase, fraction)`` hears of the backend's counting; ``cancel``,
    polled every 0.1 s while DuckDB counts, interrupts it (``Cancelled``);
    ``backend_hook(backend)`` is called before it counts (the app lends DuckDB the
    Parquet copy of a CSV file it made: ``DuckDBBackend.text_copy``)."""
    check_callables(phase_progress=phase_progress, cancel=cancel, backend_hook=backend_hook)
    job = as_job(config)
    if data is None or isinstance(data, (str, Path)):
        from engine.backends import choose_backend, count_records, data_source, open_backend
        if planned_backend(job, data) == "memory" and not is_uri(data) and \
                data_kind(job, data) not in STREAMED:  # workbooks, statistics files, databases
            return Problem(_whole_table(job, data), job)
        source = data_source(job, data)
        name = choose_backend(job, source)
        if name != "memory":  # what it cannot do was refused by planned_backend
            backend = open_backend(name, job, source)
            if backend_hook is not None:
                backend_hook(backend)
            stop = _interrupt_on_cancel(backend, cancel)
            try:
                table = count_records(backend, job, phase_progress)
                if stop.stopped.is_set():
                    raise Cancelled("anonymization cancelled while the records were counted")
                problem = Problem(table, job)
            except BaseException as e:
                backend.close()
                if stop.stopped.is_set() and isinstance(e, AnonymistError):
                    raise Cancelled("anonymization cancelled while the records were "
                                    "counted") from None
                raise
            finally:
                stop.done.set()
            problem.backend = backend
            return problem
        if source.kind == "parquet":
            from engine.backends.memory import read_parquet
            return Problem(EncodedTable.from_dataframe(read_parquet(source)), job)
    return Problem(as_table(data, job), job)


def _interrupt_on_cancel(backend, cancel: CancelCheck | None):
    """A watcher that interrupts the backend's query (DuckDB) once ``cancel()`` is true:
    ``.stopped`` says whether it did; set ``.done`` when the query is over."""
    watcher = _Watcher()
    interrupt = getattr(getattr(backend, "con", None), "interrupt", None)
    if cancel is None or interrupt is None:
        return watcher

    def watch() -> None:
        while True:
            if cancel():
                watcher.stopped.set()
                interrupt()
                return
            if watcher.done.wait(0.1):
                return

    threading.Thread(target=watch, name="anonymist-count-cancel", daemon=True).start()
    return watcher


class _Watcher:
    def __init__(self):
        self.stopped, self.done = threading.Event(), threading.Event()


def anonymize(data, config, progress: ProgressCallback | None = None,
              cancel: CancelCheck | None = None,
              build_output: bool = False, backend_hook=None) -> AnonymizationResult:
    """Find the transformation that meets the job's privacy models with least loss.

    Parameters
    ----------
    data : DataFrame, path, EncodedTable or None
        The table (None: the job's ``[data] path``).
    config : Job, dict or path
        The job: a ``Job``, the TOML structure as a dict, or a job file.
    progress : callable, optional
        Receives ``engine.search.Progress`` about every 100 ms.
    cancel : callable, optional
        Polled during the search; returning True stops it with the best so far.
    build_output : bool
        Also build the optimum's released table (``result.transformed()``) before
        returning, as a reported phase (the app does, so that its views open at once).
    backend_hook : callable, optional
        Called with the DuckDB or Spark backend before it counts (`prepare`).

    Progress reports name their phase: ``"preparing"`` (reading the job, encoding
    the data and hierarchies; ``"aggregate"`` while a DuckDB or Spark backend counts
    the records, ``done`` the share scanned), the search's (``"search"`` and its steps), then
    ``"output"`` (local recoding, and the released table when ``build_output``).
    """
    check_callables(progress=progress, cancel=cancel, backend_hook=backend_hook)
    start = time.perf_counter()
    phases = Reporter(progress, 0, cancel)
    phases.report(0, None, None, force=True, phase="preparing", done=0.0)
    problem = prepare(data, config, backend_progress(progress, cancel), cancel, backend_hook)
    phases.report(0, None, None, force=True, phase="preparing", done=1.0)
    return anonymize_prepared(problem, progress, cancel, build_output, start)


def anonymize_prepared(problem: Problem, progress: ProgressCallback | None = None,
                       cancel: CancelCheck | None = None, build_output: bool = False,
                       start: float | None = None) -> AnonymizationResult:
    """`anonymize` for a problem already prepared (the command line looks at its data
    before the search); ``start`` is when preparing began (for ``elapsed_s``)."""
    check_callables(progress=progress, cancel=cancel)
    start = time.perf_counter() if start is None else start
    check_keys(problem.job)  # pseudonym keys: refused now rather than after the search
    phases = Reporter(progress, 0, cancel)
    problem.deadline = search_deadline(problem, start, build_output)
    outcome = run_search(problem, progress, cancel)
    recoding = None
    settings = problem.job.transformation.local_recoding
    if settings and outcome.optimum is not None and not outcome.cancelled:
        from engine.search.local_recoding import local_recoding
        phases.report(0, None, None, force=True, phase="output", done=0.0)
        recoding = local_recoding(problem, outcome.optimum.levels, settings, cancel)
    result = AnonymizationResult(problem, outcome, time.perf_counter() - start,
                                 local_recoding=recoding)
    built = (build_output and result.optimum is not None and problem.backend is None
             and not phases.cancelled())
    if built:
        phases.report(0, None, None, force=True, phase="output", done=0.5 if recoding else 0.0)
        built = _build_output(result, phases)
    if built or recoding is not None:
        phases.report(0, None, None, force=True, phase="output", done=1.0)
    return result


#: seconds per released cell (rows x columns) reserved for the output within a time
#: limit. Building the released table is one roll-up from the distinct records (its
#: columns are rendered when asked for): 2-20 ms for credit card's 30,000 x 24 and
#: MACH-IV's 73,489 x 16 cells on the busy 2-core machine; this reserves about
#: ten times that (it was 3e-7, from before the release was built lazily, which left
#: 0.2-0.35 s of a 2 s limit unused)
OUTPUT_S_PER_CELL = 3e-8
#: and the share of the preparing time reserved for assembling the result (it scales
#: with the data and with how loaded the machine is)
RESULT_SHARE_OF_PREPARING = 0.05
#: the least share of the time limit a search gets even when preparing took longer
MIN_SEARCH_SHARE = 0.1


def search_deadline(problem: Problem, start: float, build_output: bool) -> float | None:
    """When a time-limited search must return so that ``anonymize`` returns within the
    job's time limit counted from ``start``: preparing counts, and the released table
    (``build_output``) is given a reserve proportional to its cells. The search gets at
    least ``MIN_SEARCH_SHARE`` of the limit. None without a time limit."""
    limit = problem.job.transformation.time_limit_s
    if limit is None:
        return None
    now = time.perf_counter()
    reserve = RESULT_SHARE_OF_PREPARING * (now - start)
    if build_output:
        reserve += OUTPUT_S_PER_CELL * problem.table.n_rows * len(problem.table.names)
    return max(start + limit - reserve, now + MIN_SEARCH_SHARE * limit)


def _build_output(result: AnonymizationResult, phases: Reporter) -> bool:
    """Build the optimum's released table, answering ``cancel`` within a tenth of a
    second: the table is built in a helper thread (pandas cannot be interrupted); when
    cancelled it is left to finish there, the result builds it again on demand.
    False when cancelled."""
    done = threading.Event()

    def build() -> None:
        try:
            released = result.transformed()
            # scrubbed columns and the scan for identifiers: here, not in a view
            released.identifier_report()
            released.identifier_findings()
        except Exception:  # noqa: BLE001 - raised again where the output is asked for
            pass
        finally:
            done.set()

    threading.Thread(target=build, name="anonymist-output", daemon=True).start()
    while not done.wait(0.1):
        if phases.cancelled():
            return False
    return True


def risk(data=None, quasi_identifiers=None, weight: str | None = None,
         household: str | None = None, method: str = "approx", sensitive=None,
         threshold: float | None = None, job=None, delimiter: str | None = None,
         backend: str = "auto", per_record=None, memory_limit: str | None = None,
         **options):
    """The survey risk measures of a table, without anonymizing it (sdcMicro's
    individual, global and household risk, SUDA2 and DIS-SUDA, k-anonymity violations,
    l-diversity, risky cells: docs/reference/risk-command.md).

    Parameters
    ----------
    data : DataFrame, path or None
        The table, raw or released (None: the job's ``[data]``).
    quasi_identifiers : list of str, optional
        The key variables (default: the job's quasi-identifying attributes).
    weight, household : str, optional
        The sampling-weight and household columns (default: the job's ``[data] weight``
        and ``[data] household``).
    method : "approx" or "exact"
        The individual risk's formula for weighted data.
    sensitive : list of str, optional
        Attributes whose distinct l-diversity is measured (default: the job's
        sensitive attributes).
    threshold : float, optional
        A record is at risk above this individual risk (None: sdcMicro's rule).
    job : Job, dict or path, optional
        A job naming the roles and the data.
    delimiter : str, optional
        The CSV's delimiter (default: the job's, else detected).
    backend : "auto", "memory" or "duckdb"
        ``duckdb`` counts a CSV or Parquet file out of core (only its frequency table
        in memory; no l-diversity); ``per_record`` is then written by DuckDB and the
        result's ``per_record`` is None. ``auto`` (default): as ``[engine] backend``
        chooses (``engine.backends.choose_backend``: DuckDB for a file too big for the
        memory; Spark's jobs too), in memory for a DataFrame or with ``sensitive``.
    per_record : path, optional
        Also write the per-record table there (CSV, atomically).
    options
        ``dis_fraction``, ``missing``, ``suda``, ``risky_cells_dimensions``,
        ``risky_cells_threshold`` of ``engine.sdc.measures.measure_risk``.

    Returns
    -------
    engine.sdc.measures.SurveyRisk
        ``per_record`` (one row per record, input order) and ``summary`` (a dict).
    """
    from engine.config import QUASI_IDENTIFYING, SENSITIVE
    from engine.sdc.measures import measure_risk
    j = as_job(job) if job is not None else None
    if j is not None:
        if quasi_identifiers is None:
            quasi_identifiers = [n for n, a in j.attributes.items()
                                 if a.type == QUASI_IDENTIFYING]
        weight = weight if weight is not None else j.weight
        household = household if household is not None else j.household
        if sensitive is None:
            sensitive = [n for n, a in j.attributes.items() if a.type == SENSITIVE]
    if not quasi_identifiers:
        raise JobError("name the quasi-identifiers (--quasi-identifiers, or "
                       "quasi-identifying attributes in the job)")
    from engine.sdc.files import write_per_record
    if backend == "auto":
        backend = "memory" if sensitive else _auto_backend(data, j, delimiter)
    if backend == "duckdb":
        return _risk_out_of_core(data, j, list(quasi_identifiers), weight, household, method,
                                 list(sensitive or ()), threshold, delimiter, per_record,
                                 memory_limit, options)
    if backend != "memory":
        raise JobError(f"backend '{backend}': memory or duckdb")
    frame = risk_frame(data, j, delimiter)
    measured = measure_risk(frame, list(quasi_identifiers), weight=weight,
                            household=household, method=method,
                            sensitive=list(sensitive or ()), threshold=threshold, **options)
    if per_record is not None:
        write_per_record(measured.per_record, per_record)
    return measured


def _risk_out_of_core(data, job, qis, weight, household, method, sensitive, threshold,
                      delimiter, per_record, memory_limit, options):
    from engine.backends.sdc_risk import measure_risk_duckdb
    from engine.data.csv_import import detect_csv_format
    from engine.sdc.measures import SurveyRisk
    if sensitive:
        raise JobError("l-diversity (sensitive attributes) is measured in memory only: "
                       "leave out --sensitive or use the memory backend")
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(data, pd.DataFrame):
        raise JobError("the duckdb backend reads a file: give a path")
    path = Path(data) if data is not None else (job.resolve(str(job.data.path))
                                                if job is not None and job.data.path else None)
    if path is None:
        raise JobError("give the data file")
    kind = data_kind(job or Job(), path)
    if kind not in STREAMED:
        raise JobError(f"the duckdb backend reads CSV and Parquet files, not {path.name}")
    if not path.exists():
        raise DataError(f"data file not found: {path}")
    encoding = job.data.encoding if job is not None else "utf-8"
    given = delimiter or (job.data.delimiter if job is not None else None)
    if kind == "csv" and given is None:
        fmt = detect_csv_format(path)
        given, encoding = fmt.delimiter, fmt.encoding
    summary = measure_risk_duckdb(path, qis, weight=weight, household=household,
                                  method=method, threshold=threshold, per_record=per_record,
                                  delimiter=given or ";", encoding=encoding,
                                  memory_limit=memory_limit, **options)
    return SurveyRisk(None, summary)


def risk_frame(data, job: Job | None = None, delimiter: str | None = None):
    """The table `risk` measures: ``data`` itself (a DataFrame), or read from a path or
    the job's ``[data]`` as strings (categoricals)."""
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(data, pd.DataFrame):
        return data
    from engine.config import DataConfig
    from engine.data.csv_import import read_csv
    from engine.project.job_data import read_frame
    if data is None and job is None:
        raise JobError("give the data: a DataFrame, a file, or a job naming it")
    j = job if job is not None else Job(data=DataConfig(delimiter=delimiter or ";"))
    if data is None and j.data.url:
        return read_frame(j)
    path = Path(data) if data is not None else j.resolve(str(j.data.path))
    if not path.exists() and data_kind(j, path) != "parquet":
        raise DataError(f"data file not found: {path}")
    kind = data_kind(j, path)
    if kind == "csv":
        given = delimiter or (job.data.delimiter if job is not None else None)
        encoding = job.data.encoding if job is not None else None
        try:
            return read_csv(path, delimiter=given, encoding=encoding, header=True,
                            categorical=True)
        except DataError as e:
            return _with_row_names(path, given, encoding, e)
    if kind == "parquet":
        from engine.data.readers import read_parquet
        return read_parquet(path)
    return read_frame(j, path)


def _with_row_names(path: Path, delimiter, encoding, error: DataError):
    """A CSV whose header leaves only its first column unnamed (R's ``write.csv`` with
    row names): that column named ``row_names``; any other file's error as it was."""
    from engine.data.csv_import import read_csv
    if "column 1 has an empty name" not in str(error):
        raise error
    raw = read_csv(path, delimiter=delimiter, encoding=encoding, header=False)
    names = ["row_names"] + [str(v) for v in raw.iloc[0, 1:]]
    if any(not n.strip() for n in names[1:]) or len(set(names)) != len(names):
        raise error
    frame = raw.iloc[1:].reset_index(drop=True)
    frame.columns = names
    return frame


def _auto_backend(data, job: Job | None, delimiter: str | None) -> str:
    """``memory`` or ``duckdb`` for `risk` as ``[engine] backend`` chooses."""
    from engine.backends import choose_backend
    from engine.backends.base import DataSource
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(data, pd.DataFrame):
        return "memory"
    j = job if job is not None else Job()
    if data is None and not j.data.path:
        return "memory"
    path = Path(data) if data is not None else j.resolve(str(j.data.path))
    kind = data_kind(j, path)
    if kind not in STREAMED or not path.is_file():
        return "memory"
    source = DataSource(str(path), kind, (path,), delimiter or j.data.delimiter,
                        j.data.encoding)
    return "memory" if choose_backend(j, source) == "memory" else "duckdb"
