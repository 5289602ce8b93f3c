"""Settings remembered between runs (QSettings in the platform's config directory)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

MAX_RECENT = 8
DEFAULT_PAGE_SIZE = 100


class AppSettings:
    """Typed access to the few values the app keeps between runs."""

    def __init__(self, qsettings: QSettings | None = None):
        self.q = qsettings or QSettings()

    # --- recent files ---------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value = self.q.value("recent_files", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or []) if v]

    def add_recent_file(self, path: str | Path) -> None:
        path = str(Path(path).resolve())
        files = [f for f in self.recent_files() if f != path]
        self.q.setValue("recent_files", ([path] + files)[:MAX_RECENT])

    def remove_recent_file(self, path: str) -> None:
        self.q.setValue("recent_files", [f for f in self.recent_files() if f != path])

    def clear_recent_files(self) -> None:
        self.q.setValue("recent_files", [])

    # --- preferences -------------------------------------------------------------------
    @property
    def page_size(self) -> int:
        try:
            return max(5, int(self.q.value("table/page_size", DEFAULT_PAGE_SIZE)))
        except (TypeError, ValueError):
            return DEFAULT_PAGE_SIZE

    @page_size.setter
    def page_size(self, value: int) -> None:
        self.q.setValue("table/page_size", int(value))

    @property
    def first_start(self) -> bool:
        return str(self.q.value("first_start_done", "false")).lower() != "true"

    def mark_started(self) -> None:
        self.q.setValue("first_start_done", "true")

    @property
    def include_data_in_project(self) -> bool:
        return str(self.q.value("project/include_data", "true")).lower() == "true"

    @include_data_in_project.setter
    def include_data_in_project(self, value: bool) -> None:
        self.q.setValue("project/include_data", "true" if value else "false")

    # --- data beyond memory -------------------------------------------------------------
    @property
    def memory_share(self) -> float:
        """Files the in-memory path would need more than this share of the memory for
        open out of core (the engine's ``[engine] memory_share``)."""
        try:
            value = float(self.q.value("engine/memory_share", 0.25))
        except (TypeError, ValueError):
            return 0.25
        return value if 0 < value <= 1 else 0.25

    @memory_share.setter
    def memory_share(self, value: float) -> None:
        self.q.setValue("engine/memory_share", float(value))

    @property
    def memory_limit(self) -> str | None:
        """DuckDB's memory limit for data out of core (e.g. "4GB"; None: DuckDB's)."""
        return str(self.q.value("engine/memory_limit", "") or "") or None

    @memory_limit.setter
    def memory_limit(self, value: str | None) -> None:
        self.q.setValue("engine/memory_limit", value or "")

    def engine_config(self):
        """The ``[engine]`` table a new project starts with."""
        from engine.config import EngineConfig
        return EngineConfig(memory_share=self.memory_share, memory_limit=self.memory_limit)

    # --- folders of the file dialogs ---------------------------------------------------
    def last_folder(self, kind: str) -> str:
        """The folder the last ``kind`` dialog (open, save, import, export, hierarchy)
        ended in; "" when none or it no longer exists."""
        folder = str(self.q.value(f"folders/{kind}", "") or "")
        return folder if folder and Path(folder).is_dir() else ""

    def remember_folder(self, kind: str, path: str | Path) -> None:
        """Remember the folder of ``path`` (a file chosen in a ``kind`` dialog)."""
        p = Path(path)
        folder = p if p.is_dir() else p.parent
        self.q.setValue(f"folders/{kind}", str(folder.resolve()))

    # --- window state --------------------------------------------------------------------
    def window_state(self) -> tuple[QByteArray | None, QByteArray | None]:
        return self.q.value("window/geometry"), self.q.value("window/state")

    def save_window_state(self, geometry: QByteArray, state: QByteArray) -> None:
        self.q.setValue("window/geometry", geometry)
        self.q.setValue("window/state", state)

    def value(self, key: str, default=None):
        return self.q.value(key, default)

    def set_value(self, key: str, value) -> None:
        self.q.setValue(key, value)
