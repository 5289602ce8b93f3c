"""Apache Spark backend (PySpark): counts and releases data on a cluster or ``local[*]``.

The frequency table is one ``groupBy`` over the needed columns (with each
combination's first row, so rows come in order of first occurrence, as on the
other paths); only that table reaches Python. The release is a projection
evaluated by the executors: each quasi-identifier's label and generalized code
come from literal maps, a record is suppressed when its class key is in the
literal set of suppressed keys (Spark's hash ``InSet``), and the result is
written by the executors as a folder of part files (CSV with a header each, or
Parquet), the records in input order across ``part-00000``, ``part-00001``, ...

Data and release may be URIs (``hdfs://``, ``s3a://``, ``gs://``, ``abfs://``,
``file://``; globs and folders of parts) that Spark reads and writes itself; the
master is the job's ``spark_master`` when it names one, else spark-submit's
(``engine/backends/spark_submit.py``; docs/guide/cluster.md).
"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import numpy as np

from engine.backends.base import (Backend, DataSource, PhaseProgress, ReleasePlan,
                                  labels_without_formulas)
from engine.backends.locations import is_uri, uri_kind
from engine.data.table import EncodedTable
from engine.errors import DataError

_ROW = "__anonymist_row"
_FILE = "__anonymist_file"


def _quoted(name: str) -> str:
    """A column name for Spark SQL."""
    return "`" + name.replace("`", "``") + "`"


def spark_memory(size: str | None) -> str | None:
    """'8GB' -> '8g' (Spark's notation); None stays None."""
    if not size:
        return None
    m = re.fullmatch(r"\s*(\d+)\s*([kKmMgGtT])i?[bB]?\s*", size)
    if not m:
        raise DataError(f"[engine] memory_limit = '{size}' is not a size such as '8GB'")
    return f"{m[1]}{m[2].lower()}"


class SparkBackend(Backend):
    name = "spark"
    subset_by_row_number = False  # CSV rows have no consecutive number in Spark
    releases_pseudonyms = False  # the key would travel to the executors
    writes_uris = True  # hdfs://, s3a://, file://...: through Spark's own committer

    def __init__(self, source: DataSource, master: str | None = None,
                 memory_limit: str | None = None):
        super().__init__(source)
        self._settings = (master, memory_limit)
        from pyspark.sql import SparkSession
        builder = SparkSession.builder.appName("anonymist")
        if master:  # else spark-submit's --master (spark-submit's default: local[*])
            builder = builder.master(master)
        builder = (builder.config("spark.ui.showConsoleProgress", "false")
                   .config("spark.sql.session.timeZone", "UTC"))
        try:  # what spark-submit's --conf or spark-defaults.conf set (the gateway first:
            # before it a SparkConf sees none of them)
            from pyspark import SparkConf, SparkContext
            SparkContext._ensure_initialized()
            self._given = {k for k, _ in SparkConf().getAll()}
        except Exception:  # no Java: said below, by getOrCreate
            self._given = set()
        for key, value in (("spark.ui.enabled", "false"),
                           ("spark.sql.adaptive.enabled", "true")):
            if key not in self._given:
                builder = builder.config(key, value)
        memory = spark_memory(memory_limit)
        if memory:
            builder = builder.config("spark.driver.memory", memory)
        try:
            self.spark = builder.getOrCreate()
        except Exception as e:  # no Java, bad master URL
            raise DataError(f"Spark could not start ({master or 'spark-submit master'}): "
                            f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
        self.spark.sparkContext.setLogLevel("ERROR")
        self._files: list[tuple[str, int]] | None = None
        self._kind: str | None = None

    # --- reading ------------------------------------------------------------------
    def files(self) -> list[tuple[str, int]]:
        """The data's files as URIs Spark reads, in the order their records are read
        (name order), with their sizes: local files as ``file://`` URIs, a URI (a file,
        a glob, a folder of parts) listed by Spark's own file system for its scheme (no
        check on this machine's disk)."""
        if self._files is not None:
            return self._files
        s = self.source
        if s.files:
            self._files = [(Path(f).resolve().as_uri(), f.stat().st_size) for f in s.files]
            self._kind = s.kind
            return self._files
        jvm = self.spark.sparkContext._jvm
        conf = self.spark.sparkContext._jsc.hadoopConfiguration()
        try:
            pattern = jvm.org.apache.hadoop.fs.Path(s.path)
            fs = pattern.getFileSystem(conf)
            found = []
            for st in fs.globStatus(pattern) or []:
                if st.isDirectory():  # a folder of parts: its data files
                    found += [c for c in fs.listStatus(st.getPath()) if c.isFile()
                              and not c.getPath().getName().startswith(("_", "."))]
                elif not st.getPath().getName().startswith(("_", ".")):
                    found.append(st)
            files = sorted((str(st.getPath().toString()), int(st.getLen())) for st in found)
        except Exception as e:  # no file system for the scheme, no access
            raise DataError(f"{s.path}: Spark cannot list it: "
                            f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") \
                from None
        if not files:
            raise DataError(f"[data] path '{s.path}' matches no file")
        kinds = {uri_kind(f) for f, _ in files}
        kind = s.kind if s.kind != "parts" else (kinds.pop() if len(kinds) == 1 else None)
        if kind is None:
            raise DataError(f"{s.path}: its files are not all .parquet or all .csv "
                            f"({files[0][0]}, ...)")
        self._files, self._kind = files, kind
        return files

    def kind(self) -> str:
        self.files()
        return self._kind

    def _size_partitions(self) -> None:
        """``spark.sql.shuffle.partitions`` from the cluster's parallelism and the data:
        at least one per core, one per 128 MiB of input up to 8 per core (adaptive
        execution merges small ones)."""
        if "spark.sql.shuffle.partitions" in self._given:  # spark-submit --conf decides
            return
        cores = max(1, int(self.spark.sparkContext.defaultParallelism))
        size = sum(n for _, n in self.files())
        wanted = max(cores, min(8 * cores, -(-size // (128 * 2**20))))
        self.spark.conf.set("spark.sql.shuffle.partitions", str(wanted))

    def frame(self):
        """The source with every column as text ('' for missing) and a row order key
        (the file's number in name order, the row within it). The files are read one by
        one and joined by a union, whose partitions keep that order: the release's part
        files hold the records in input order with no sort."""
        from pyspark.sql import functions as F
        s = self.source
        files = self.files()
        self._size_partitions()
        df = None
        for i, (f, _) in enumerate(files):
            if self._kind == "parquet":
                part = (self.spark.read.parquet(f)
                        .withColumn(_ROW, F.col("_metadata.row_index")))
            else:
                part = (self.spark.read
                        .option("sep", s.delimiter).option("quote", '"').option("escape", '"')
                        .option("header", True).option("inferSchema", False)
                        .option("encoding", s.encoding or "utf-8")
                        .option("ignoreLeadingWhiteSpace", False)
                        .option("ignoreTrailingWhiteSpace", False)
                        .option("mode", "FAILFAST")
                        .csv(f)
                        .withColumn(_ROW, F.monotonically_increasing_id()))
            part = part.withColumn(_FILE, F.lit(i))
            df = part if df is None else df.unionByName(part)
        names = [c for c in df.columns if c not in (_FILE, _ROW)]
        cols = [F.coalesce(F.col(f"`{c}`").cast("string"), F.lit("")).alias(c) for c in names]
        return df.select(*cols, _FILE, _ROW), names

    def columns(self) -> list[str]:
        return self.frame()[1]

    def frequency_table(self, columns: list[str], progress: PhaseProgress | None = None,
                        subset: np.ndarray | None = None,
                        sample: bytes | None = None) -> EncodedTable:
        from pyspark.sql import functions as F
        if subset is not None or sample is not None:
            raise DataError("the spark backend does not count a research subset of row "
                            "numbers")

        from engine.backends.base import frequency_columns
        df, names = self.frame()
        missing = [c for c in columns if c not in names]
        if missing:
            raise DataError(f"{self.source.label} has no column '{missing[0]}' "
                            f"(columns: {', '.join(names)})")
        columns = [c for c in names if c in set(columns)]
        if progress:
            progress("aggregate", None)
        first = F.min(F.struct(F.col(_FILE), F.col(_ROW))).alias("__first")
        grouped = (df.groupBy(*[F.col(f"`{c}`") for c in columns])
                   .agg(F.count(F.lit(1)).alias("__w"), first)
                   .orderBy("__first"))
        try:
            pdf = grouped.select(*[F.col(f"`{c}`") for c in columns], "__w").toPandas()
        except Exception as e:
            raise DataError(f"{self.source.label}: Spark failed: {str(e).splitlines()[0]}") \
                from None
        if progress:
            progress("aggregate", 1.0)
        return frequency_columns({c: pdf[c].to_numpy(object) for c in columns},
                                 pdf["__w"].to_numpy(np.int64), names)

    # --- release ------------------------------------------------------------------
    def write_release(self, plan: ReleasePlan, path, fmt: str, delimiter: str = ";",
                      progress: PhaseProgress | None = None,
                      formula_cells: str = "keep") -> dict | None:
        """Write the release as a folder of part files, by the executors through Spark's
        output committer: to a URI (``hdfs://``, ``s3a://``, ``file://``...) directly
        (an earlier release there is replaced: Spark's overwrite), to a local path
        through a hidden sibling folder that then takes the path's place (an earlier
        release folder or file there is replaced only once the new one is complete)."""
        released = self._released(plan)
        uri = path if is_uri(path) else None
        done = None
        if fmt != "parquet":
            released, done = self._formula_cells(released, plan, formula_cells, str(path))
        if progress:
            progress("release", None)
        if uri is not None:
            self._write(released, uri, fmt, delimiter, uri)
        else:
            path = Path(path)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            old = path.with_name(f".{path.name}.{os.getpid()}.old")
            try:
                self._write(released, tmp.resolve().as_uri(), fmt, delimiter, str(path))
                if path.is_dir():
                    os.replace(path, old)
                elif path.exists() or path.is_symlink():
                    path.unlink()
                os.replace(tmp, path)
            finally:
                for leftover in (tmp, old):
                    if leftover.exists():
                        shutil.rmtree(leftover, ignore_errors=True)
        if progress:
            progress("release", 1.0)
        return done

    @staticmethod
    def _write(released, where: str, fmt: str, delimiter: str, label: str) -> None:
        try:
            writer = released.write.mode("overwrite")
            if fmt == "parquet":
                writer.parquet(where)
            else:
                (writer.option("header", True).option("sep", delimiter).option("quote", '"')
                 .option("escape", '"').option("emptyValue", "").option("nullValue", "")
                 .option("ignoreLeadingWhiteSpace", False)
                 .option("ignoreTrailingWhiteSpace", False).csv(where))
        except Exception as e:
            raise DataError(f"{label}: Spark could not write the release: "
                            f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") \
                from None

    @staticmethod
    def _formula_cells(released, plan: ReleasePlan, policy: str, path: str):
        """The released DataFrame with its formula cells treated as the in-memory CSV
        export treats them (``engine.formulas``), counted in one more pass first over
        the columns whose cells are not all known labels (`labels_without_formulas`)."""
        from pyspark.sql import functions as F

        from engine.formulas import NUMBER_PATTERN, TRIGGERS, FormulaCells
        cells = FormulaCells(policy, str(path))
        columns = list(plan.columns)

        def test(c):
            body = F.regexp_replace(released[c], "^'+", "")
            return (F.substring(body, 1, 1).isin(list(TRIGGERS))
                    & ~body.rlike(f"^(?:{NUMBER_PATTERN})$"))
        # columns of known labels none of which is a formula hold none: not scanned
        # (none left: no pass at all; at 100 M rows the pass took 15 of the release's
        # 21 min, tests/benchmarks/results/2026-11-28-cluster.md)
        scanned = [c for c in columns if not labels_without_formulas(plan, c)]
        counts = released.select(*[F.sum(F.when(test(c), 1).otherwise(0)).alias(c)
                                   for c in scanned]).collect()[0] if scanned else {}
        for c in scanned:
            if counts[c]:
                cells.labels(c, ["="], [int(counts[c])])
        if not cells.neutralised:
            return released, cells.to_dict()
        return released.select(*[F.when(test(c), F.concat(F.lit("'"), released[c]))
                                 .otherwise(released[c]).alias(c) for c in columns]), cells.to_dict()

    def _released(self, plan: ReleasePlan, numbered: bool = False):
        """The released records in input order (a DataFrame of ``plan.columns``; with
        ``numbered`` also the order keys, to page through)."""
        from pyspark.sql import functions as F
        if plan.sample is not None:
            raise DataError("the spark backend does not release a differential-privacy "
                            "sample: set [engine] backend = \"duckdb\" or \"memory\"")
        if plan.subset_rows is not None or plan.subset_keys is not None:
            raise DataError("the spark backend does not release a research subset (a "
                            "subset job releases the subset's records only): set [engine] "
                            "backend = \"duckdb\" or \"memory\"")
        if plan.pseudonyms:
            raise DataError(f"attribute '{plan.pseudonyms[0][0]}': pseudonyms are released by "
                            f"the memory or duckdb backend (the key would travel to Spark's "
                            f"executors): set [engine] backend = \"duckdb\" or \"memory\"")
        df, names = self.frame()
        strides = plan.key_strides()
        if strides is None:
            raise DataError("the quasi-identifiers' generalized values do not fit a 62-bit "
                            "key for the Spark release: use [engine] backend = \"memory\"")
        qi_index = {q: j for j, q in enumerate(plan.qis)}
        key = F.lit(0).cast("long")
        labels = {}
        for q, j in qi_index.items():
            col = F.col(f"`{q}`")
            lab = F.create_map(*[F.lit(x) for v, l in zip(plan.values[j], plan.labels[j])
                                 for x in (str(v), str(l))])
            gen = F.create_map(*[F.lit(x) for v, g in zip(plan.values[j], plan.gen[j])
                                 for x in (str(v), int(g))])
            labels[q] = F.element_at(lab, col)
            key = key + F.element_at(gen, col).cast("long") * F.lit(int(strides[j]))
        keys = [int(k) for k in plan.suppressed_keys()]
        suppressed = key.isin(keys) if keys else F.lit(False)
        recoded = {name: F.create_map(*[F.lit(x) for v, r in zip(values, coded)
                                        for x in (str(v), str(r))])
                   for name, values, coded in plan.recoded}
        aggregated = {}
        for name, gen, labels_ in plan.aggregated:
            pairs = [F.lit(x) for k, lab in zip(plan.class_keys(gen).tolist(), labels_)
                     for x in (int(k), str(lab))]
            aggregated[name] = F.coalesce(F.element_at(F.create_map(*pairs), key), F.lit("")) \
                if pairs else F.lit("")
        out = []
        for c in plan.columns:
            if c in aggregated:  # the class's aggregate; suppressed records the marker
                out.append(F.when(suppressed, F.lit(plan.marker)).otherwise(aggregated[c])
                           .alias(c))
            elif c in recoded:
                out.append(F.element_at(recoded[c], F.col(f"`{c}`")).alias(c))
            elif c in qi_index:
                out.append(F.when(suppressed, F.lit(plan.marker)).otherwise(labels[c]).alias(c))
            else:
                out.append(F.col(f"`{c}`").alias(c))
        if numbered:
            return df.select(*out, _FILE, _ROW)
        return df.select(*out)  # the union's partitions are in input order: no sort

    # --- what the analyses read -----------------------------------------------------------
    def column_counts(self, columns: list[str],
                      progress: PhaseProgress | None = None) -> dict[str, EncodedTable]:
        """Each column's distinct values with their record counts (a weighted table of
        that column), every column counted in one scan (GROUPING SETS), as DuckDB's."""
        from engine.backends.base import frequency_columns
        df, names = self.frame()
        columns = [c for c in names if c in set(columns)]
        if not columns:
            return {}
        view = f"__anonymist_columns_{id(self)}"
        df.createOrReplaceTempView(view)
        cols = ", ".join(_quoted(c) for c in columns)
        flags = ", ".join(f"grouping({_quoted(c)}) AS __g{j}" for j, c in enumerate(columns))
        sets = ", ".join(f"({_quoted(c)})" for c in columns)
        if progress:
            progress("aggregate", None)
        try:
            pdf = self.spark.sql(f"SELECT {cols}, count(1) AS __w, {flags} FROM {view} "
                                 f"GROUP BY GROUPING SETS ({sets})").toPandas()
        except Exception as e:
            raise DataError(f"{self.source.label}: Spark failed: {str(e).splitlines()[0]}") \
                from None
        finally:
            self.spark.catalog.dropTempView(view)
        if progress:
            progress("aggregate", 1.0)
        out = {}
        for j, c in enumerate(columns):
            mine = pdf[f"__g{j}"].to_numpy() == 0
            out[c] = frequency_columns({c: pdf[c].to_numpy(object)[mine]},
                                       pdf["__w"].to_numpy(np.int64)[mine], names)
        return out

    def rows(self, start: int, count: int, plan: ReleasePlan | None = None):
        """Records ``start .. start + count - 1`` in input order (released by ``plan`` if
        given), every column as text: a scan and a sort by Spark per page."""
        from pyspark.sql import functions as F
        if plan is None:
            df, names = self.frame()
            numbered = df
        else:
            names, numbered = list(plan.columns), self._released(plan, numbered=True)
        page = (numbered.orderBy(_FILE, _ROW).select(*[F.col(_quoted(c)) for c in names])
                .offset(max(0, int(start))).limit(max(0, int(count))))
        try:
            return page.toPandas()
        except Exception as e:
            raise DataError(f"{self.source.label}: Spark failed: {str(e).splitlines()[0]}") \
                from None

    def twin(self) -> "SparkBackend":
        """Another backend on the same data (the session is the process's, shared)."""
        return SparkBackend(self.source, *self._settings)

    def close(self) -> None:
        pass  # the session is shared by the process (getOrCreate); Spark stops it at exit
