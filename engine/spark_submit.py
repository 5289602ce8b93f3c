"""The entry script ``spark-submit`` runs: the ``anonymist`` command line inside a
Spark driver, the master chosen by spark-submit (``--master yarn``, ``k8s://...``,
``spark://...``) unless the job names ``[engine] spark_master``.

    spark-submit --master yarn --deploy-mode client \\
        $(python -c "import engine.spark_submit as m; print(m.__file__)") \\
        anonymize job.toml --output hdfs://namenode:8020/releases/out.csv

The arguments are the command line's (docs/reference/command-line.md); the exit code
is its exit code. The driver needs the ``anonymist`` package installed (its Python
environment: ``--conf spark.pyspark.driver.python=...``); the executors run Spark SQL
only and need no Python package of ours (docs/guide/cluster.md).
"""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from engine.cli import main as cli_main
    return cli_main(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":  # run as a script: this folder off the path, the package on it
    from pathlib import Path
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    root = str(here.parent)
    if root not in sys.path:
        sys.path.append(root)  # an installed anonymist (earlier on the path) comes first
    sys.exit(main())
