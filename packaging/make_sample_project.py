"""Build ``resources/sample/adult.anonymist`` from the Adult data and its hierarchies.

    python packaging/make_sample_project.py [ADULT_DIR]

ADULT_DIR holds adult.csv and adult_hierarchy_<attribute>.csv (default:
../shared/data/adult beside the repository).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.project_file import ProjectSnapshot, write_project  # noqa: E402
from engine.config import TransformationConfig  # noqa: E402
from engine.data.csv_import import read_csv  # noqa: E402
from engine.data.table import EncodedTable  # noqa: E402
from engine.hierarchy.csv_io import read_hierarchy  # noqa: E402

QIS = ("age", "education", "marital-status", "native-country", "occupation", "race",
       "salary-class", "sex", "workclass")


def build(adult: Path, out: Path) -> None:
    df = read_csv(adult / "adult.csv", delimiter=";", encoding="utf-8", header=True)
    table = EncodedTable.from_dataframe(df)
    snap = ProjectSnapshot(
        attributes={n: {"type": "quasi-identifying" if n in QIS else "insensitive",
                        "data_type": "integer" if n == "age" else None}
                    for n in table.names},
        hierarchies={q: [list(r) for r in read_hierarchy(
            adult / f"adult_hierarchy_{q}.csv", q).rows] for q in QIS},
        privacy=[{"model": "k-anonymity", "k": 5}],
        metric={"name": "loss", "monotonic": False, "gs_factor": 0.5,
                "aggregate": "geometric-mean"},
        transformation=TransformationConfig(suppression_limit=0.04),
        source={"kind": "csv", "location": "adult.csv", "delimiter": ";", "quotechar": '"',
                "encoding": "utf-8", "has_header": True, "table": ""},
        table=table)
    write_project(snap, out, include_data=True)


if __name__ == "__main__":
    adult = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared/data/adult"
    out = ROOT / "resources/sample/adult.anonymist"
    build(adult, out)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")
