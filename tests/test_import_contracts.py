"""Import contracts (ARCHITECTURE.md), checked on the source by its syntax tree, so
function-local imports count too; imports under ``if TYPE_CHECKING:`` do not.

- ``engine`` never imports PySide6, pyqtgraph or ``app``;
- each engine package or root module sits on one layer of ``LAYERS`` and imports only
  from lower layers (no cycles, no two rooms on one floor importing each other);
- each app room sits on one floor of ``APP_LAYERS`` and imports only from lower ones;
- the perspectives (``app/perspectives/<name>/``) never import each other;
- no files of ``app`` or ``engine`` import each other in a loop;
- ``app`` holds Qt and presentation only: it never imports DuckDB and writes no SQL
  (the browse API of ``engine.backends`` pages, sorts and counts for it);
- the verifier (``engine.verify`` and ``engine.verifier``) imports nothing of the
  engine's search path, directly or transitively (only the rooms in
  ``VERIFIER_SHARES``, each justified in ``engine/verifier/__init__.py``).
"""
from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"

#: the engine's floors, bottom first: a room imports only from floors below its own
#: (ARCHITECTURE.md says what lives on each)
LAYERS = [
    {"errors", "io_utils", "progress", "markers", "signals"},
    {"data", "schema", "certificate"},
    {"hierarchy", "query", "pseudonyms", "identifiers", "formulas"},
    {"kernel", "verifier"},
    {"classes", "lattice", "estimators"},
    {"metrics"},
    {"privacy", "solution_space"},
    {"config"},
    {"transform", "subset", "persons", "sdc"},
    {"backends"},
    {"problem"},
    {"search"},
    {"output", "analysis", "project"},
    {"export", "release_choice"},
    {"result", "verify"},
    {"release_docs", "saved_result"},
    {"guide"},
    {"api"},
    {"warmup"},
    {"subcommands"},
    {"cli"},
    {"spark_submit"},
]
FLOOR = {room: i for i, floor in enumerate(LAYERS) for room in floor}

#: the app's floors, bottom first (ARCHITECTURE.md, "The app's floors"): services below
#: the document below the views; the perspectives above the models and widgets they
#: show; the wizards above the models (and the perspectives' figures they show); the
#: window and its file menu on top
APP_LAYERS = [
    {"settings", "theme", "workers", "platform_check",  # services: settings, colours,
     "source", "hierarchy_status", "person_role",       # threads, can a window open here;
     "survey_roles"},                                   # records the document keeps, shows
    {"distinct_requests"},                          # the document's background counts
    {"document", "project_file"},                   # the one document; project files
    {"project_io", "widgets", "file_dialogs",      # document <-> project; shared widgets;
     "identifier_choice"},                         # identifiers in released columns
    {"models", "hierarchies_beside"},               # Qt item models over engine arrays
    {"perspectives"},                               # the four perspectives, independent
    {"wizards", "actions", "warmup"},               # import, hierarchy, guided release
    {"file_operations"},                            # the File menu's work
    {"main_window"},
    {"__main__"},
    {"launcher"},
]
APP_FLOOR = {room: i for i, floor in enumerate(APP_LAYERS) for room in floor}
GUI = ("PySide6", "pyqtgraph", "shiboken6", "app")


def _type_checking_only(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


@functools.lru_cache(maxsize=None)
def imports(path: Path, package: str) -> list[tuple[str, int]]:
    """Absolute names imported by a file (``from a import b`` gives ``a.b`` too, as
    ``b`` may be a module), with line numbers."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST) -> None:
        if _type_checking_only(node):
            return
        if isinstance(node, ast.Import):
            found.extend((a.name, node.lineno) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the file's package
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append((module, node.lineno))
            found.extend((f"{module}.{a.name}", node.lineno) for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _package_of(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts if parts[-1] == "__init__" else parts[:-1]).removesuffix(".__init__")


def _room(module: str) -> str | None:
    """The engine room (top-level package or root module) of a module name."""
    parts = module.split(".")
    if parts[0] != "engine" or len(parts) < 2:
        return None
    name = parts[1]
    if (ENGINE / name).is_dir() or (ENGINE / f"{name}.py").is_file():
        return name
    return None


def _sources(folder: Path):
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_engine_room_has_a_floor():
    rooms = {p.stem for p in ENGINE.glob("*.py") if p.stem != "__init__"}
    rooms |= {p.name for p in ENGINE.iterdir() if (p / "__init__.py").is_file()}
    missing = sorted(rooms - set(FLOOR))
    assert not missing, (f"engine rooms without a floor in LAYERS (add them to "
                         f"tests/test_import_contracts.py and ARCHITECTURE.md): {missing}")


def test_engine_never_imports_the_gui():
    bad = [f"{p.relative_to(ROOT)}:{line} imports {name}"
           for p in _sources(ENGINE) for name, line in imports(p, _package_of(p))
           if name.split(".")[0] in GUI]
    assert not bad, "\n".join(bad)


def test_engine_rooms_import_only_lower_floors():
    bad = []
    for p in _sources(ENGINE):
        rel = p.relative_to(ENGINE)
        if rel == Path("__init__.py"):
            continue  # the package's public face re-exports from every floor
        own = rel.parts[0].removesuffix(".py")
        for name, line in imports(p, _package_of(p)):
            other = _room(name)
            if other is None or other == own or own not in FLOOR or other not in FLOOR:
                continue
            if FLOOR[other] >= FLOOR[own]:
                bad.append(f"engine/{rel}:{line}: {own} (floor {FLOOR[own]}) imports "
                           f"{name} (floor {FLOOR[other]})")
    assert not bad, "\n".join(bad)


def _app_rooms() -> set[str]:
    app = ROOT / "app"
    return ({p.stem for p in app.glob("*.py") if p.stem != "__init__"}
            | {p.name for p in app.iterdir() if (p / "__init__.py").is_file()})


def test_every_app_room_has_a_floor():
    missing = sorted(_app_rooms() - set(APP_FLOOR))
    assert not missing, (f"app rooms without a floor in APP_LAYERS (add them to "
                         f"tests/test_import_contracts.py and ARCHITECTURE.md): {missing}")


def test_app_rooms_import_only_lower_floors():
    app, rooms, bad = ROOT / "app", _app_rooms(), []
    for p in _sources(app):
        rel = p.relative_to(app)
        if rel == Path("__init__.py"):
            continue
        own = rel.parts[0].removesuffix(".py")
        for name, line in imports(p, _package_of(p)):
            parts = name.split(".")
            if parts[0] != "app" or len(parts) < 2 or parts[1] not in rooms:
                continue
            other = parts[1]
            if other != own and APP_FLOOR.get(other, -1) >= APP_FLOOR.get(own, -1):
                bad.append(f"app/{rel}:{line}: {own} (floor {APP_FLOOR.get(own)}) imports "
                           f"{name} (floor {APP_FLOOR.get(other)})")
    assert not bad, "\n".join(bad)


def test_perspectives_never_import_each_other():
    root = ROOT / "app" / "perspectives"
    names = {p.name for p in root.iterdir() if (p / "__init__.py").is_file()}
    bad = []
    for name in names:
        for p in _sources(root / name):
            for module, line in imports(p, _package_of(p)):
                parts = module.split(".")
                if parts[:2] == ["app", "perspectives"] and len(parts) > 2 \
                        and parts[2] in names and parts[2] != name:
                    bad.append(f"{p.relative_to(ROOT)}:{line} imports {module}")
    assert not bad, "\n".join(bad)


def test_the_checker_sees_local_and_relative_imports(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import app\n"
                   "def f():\n    from engine import search\n    from . import kernel\n")
    names = {n for n, _ in imports(src, "engine.metrics")}
    assert "engine.search" in names and "engine.metrics.kernel" in names
    assert "app" not in names


#: SQL as it would be written in a string: a statement's first words or a clause
SQL = re.compile(r"\b(SELECT\s.+\sFROM|GROUP BY|ORDER BY|INSERT INTO|CREATE (TABLE|VIEW)|"
                 r"COPY\s*\(|DESCRIBE SELECT|read_parquet\(|read_csv\()", re.S)
DATABASES = ("duckdb", "sqlite3", "sqlalchemy", "pyspark")


def _strings(path: Path):
    """``(line, text)`` of each string literal but docstrings; an f-string's text with
    ``{}`` where it formats a value."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                 ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr)}
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            skip.update(id(v) for v in node.values)
            yield node.lineno, "".join(v.value if isinstance(v, ast.Constant) else "{}"
                                       for v in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in skip:
            yield node.lineno, node.value


def test_app_imports_no_database_and_writes_no_sql():
    app = ROOT / "app"
    bad = [f"{p.relative_to(ROOT)}:{line} imports {name}"
           for p in _sources(app) for name, line in imports(p, _package_of(p))
           if name.split(".")[0] in DATABASES]
    bad += [f"{p.relative_to(ROOT)}:{line}: SQL {text[:60]!r}"
            for p in _sources(app) for line, text in _strings(p) if SQL.search(text)]
    assert not bad, "\n".join(bad)


def test_the_sql_check_sees_sql_in_strings(tmp_path):
    src = tmp_path / "m.py"
    src.write_text('"""SELECT a FROM t in a docstring is prose."""\n'
                   'q = f"SELECT {c} FROM {{data}} LIMIT 3"\nr = "Select from the list"\n')
    assert [line for line, text in _strings(src) if SQL.search(text)] == [2]


def _module_files() -> dict[str, Path]:
    """``{module name: file}`` of every module of ``app`` and ``engine``."""
    out = {}
    for top in ("app", "engine"):
        for p in _sources(ROOT / top):
            parts = list(p.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = p
    return out


def import_cycles() -> list[list[str]]:
    """Files of ``app`` and ``engine`` that import each other in a loop (function-local
    imports count; ``TYPE_CHECKING`` imports do not), as strongly connected groups."""
    files = _module_files()
    graph: dict[Path, set[Path]] = {}
    for p in files.values():
        found = imports(p, _package_of(p))
        targets = set()
        for name, line in found:
            if name in files and any(other.startswith(name + ".") and other in files
                                     and at == line for other, at in found):
                continue  # `from package import module`: the module, not the package's face
            parts = name.split(".")
            while parts and ".".join(parts) not in files:
                parts.pop()
            if parts and files[".".join(parts)] != p:
                targets.add(files[".".join(parts)])
        graph[p] = targets
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    groups: list[list[str]] = []

    def visit(v: Path) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(str(w.relative_to(ROOT)))
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return groups


def test_no_import_cycles():
    cycles = import_cycles()
    assert not cycles, "files importing each other in a loop:\n" + "\n".join(
        " <-> ".join(group) for group in cycles)
#: what the verifier may import of the engine, directly or transitively (modules or
#: their packages): its own rooms and what it shares on purpose (engine/verifier/__init__.py)
VERIFIER_SHARES = ("engine", "engine.verify", "engine.verifier", "engine.errors",
                   "engine.markers", "engine.data", "engine.query", "engine.identifiers")
#: rooms of the engine's search path the verifier must never reach (named to make the
#: rule readable; anything outside VERIFIER_SHARES is refused as well)
VERIFIER_FORBIDDEN = ("problem", "classes", "search", "kernel", "output", "privacy",
                      "lattice", "metrics", "estimators", "solution_space", "transform",
                      "subset", "config", "project", "backends", "result", "analysis",
                      "hierarchy", "schema", "pseudonyms")


def _module_file(module: str) -> Path | None:
    p = ROOT / Path(*module.split("."))
    if (p / "__init__.py").is_file():
        return p / "__init__.py"
    if p.with_suffix(".py").is_file():
        return p.with_suffix(".py")
    return None


def import_closure(start: str) -> dict[str, str]:
    """Every engine module ``start`` loads, directly or through others (a module's
    packages too, as Python runs their ``__init__``), each with the module that
    imported it first."""
    seen: dict[str, str] = {}
    todo = [(start, "")]
    while todo:
        module, by = todo.pop()
        parts = module.split(".")
        for i in range(1, len(parts) + 1):
            name = ".".join(parts[:i])
            path = _module_file(name)
            if path is None or name in seen:
                continue
            seen[name] = by
            todo.extend((n, name) for n, _ in imports(path, _package_of(path))
                        if n.split(".")[0] == "engine")
    return seen


def _allowed(module: str) -> bool:
    return any(module == s or module.startswith(s + ".") for s in VERIFIER_SHARES
               if s != "engine") or module == "engine"


def test_the_verifier_is_independent():
    starts = ["engine.verify"] + sorted(
        "engine.verifier." + p.stem for p in (ENGINE / "verifier").glob("*.py"))
    bad = []
    for start in starts:
        for module, by in import_closure(start).items():
            if not _allowed(module):
                room = _room(module)
                why = f" (the search path's room '{room}')" if room in VERIFIER_FORBIDDEN else ""
                bad.append(f"{start} reaches {module}{why}, imported by {by}")
    assert not bad, "\n".join(sorted(set(bad)))


def test_the_closure_sees_what_the_verifier_would_import():
    """The closure follows modules through packages and function-local imports."""
    closure = import_closure("engine.verify")
    assert "engine.verifier.checks" in closure and "engine.verifier.estimators" in closure
    assert "engine.data.csv_arrow" in closure  # shared on purpose
    assert "engine.search" in import_closure("engine.project.job_file")
    assert not _allowed("engine.privacy.t_closeness") and _allowed("engine.verifier.order")
    assert "engine.privacy" in import_closure("engine.config")
