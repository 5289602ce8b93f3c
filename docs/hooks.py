"""MkDocs hooks (``hooks:`` in mkdocs.yml).

- ``reference/parameters.md`` is generated on every build from the parameter
  declarations (``docs/gen_reference.py``), so it cannot drift from the job-file reader.
- The measurements live beside the benchmarks that made them (``tests/benchmarks/*.md``
  and ``tests/benchmarks/results/*.md``, dated); they are served under
  ``measurements/`` so the documentation links to them without copies.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "tests" / "benchmarks"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_reference", ROOT / "docs" /
                                                  "gen_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measurement_files() -> dict[str, Path]:
    """Site path -> source file of every measurement page."""
    out = {f"measurements/{p.name}": p for p in sorted(BENCHMARKS.glob("README*.md"))}
    out.update({f"measurements/results/{p.name}": p
                for p in sorted((BENCHMARKS / "results").glob("*.md"))})
    return out


def measurements_index() -> str:
    """The page listing every measurement file, newest results first (so a new dated
    file is linked without editing the navigation)."""
    lines = ["# Measurements", "",
             "Dated results of the benchmarks in `tests/benchmarks/` (newest first), and "
             "the benchmarks' own logs. How to run them: [benchmarks]"
             "(../development/benchmarks.md).", "", "## Results", ""]
    files = measurement_files()
    for uri, path in sorted(files.items(), reverse=True):
        if uri.startswith("measurements/results/"):
            lines.append(f"- [{_title(path)}]({uri.removeprefix('measurements/')})")
    lines += ["", "## Benchmark logs", ""]
    for uri, path in sorted(files.items()):
        if not uri.startswith("measurements/results/"):
            lines.append(f"- [{path.name}: {_title(path)}]({uri.removeprefix('measurements/')})")
    return "\n".join(lines) + "\n"


def _title(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem


def on_files(files, config):
    files.append(File.generated(config, "reference/parameters.md",
                                content=_generator().page()))
    files.append(File.generated(config, "measurements/index.md",
                                content=measurements_index()))
    for uri, path in measurement_files().items():
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files
