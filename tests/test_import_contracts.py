"""Import contracts (ARCHITECTURE.md), checked on the source by its syntax tree, so
function-local imports count too; imports under ``if TYPE_CHECKING:`` do not.

- ``engine`` never imports PySide6, pyqtgraph or ``app``;
- each engine package or root module sits on one layer of ``LAYERS`` and imports only
  from lower layers (no cycles, no two rooms on one floor importing each other);
- the perspectives (``app/perspectives/<name>/``) never import each other.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"

#: the engine's floors, bottom first: a room imports only from floors below its own
#: (ARCHITECTURE.md says what lives on each)
LAYERS = [
    {"errors", "io_utils", "progress", "markers"},
    {"data", "schema"},
    {"hierarchy", "query", "pseudonyms"},
    {"kernel"},
    {"classes", "lattice", "estimators"},
    {"metrics"},
    {"privacy", "solution_space"},
    {"config"},
    {"transform", "subset", "persons"},
    {"backends"},
    {"problem"},
    {"search"},
    {"output", "analysis", "project"},
    {"export"},
    {"result", "verify"},
    {"release_docs"},
    {"guide"},
    {"api"},
    {"warmup"},
    {"cli"},
]
FLOOR = {room: i for i, floor in enumerate(LAYERS) for room in floor}
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
