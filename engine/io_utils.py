"""File helpers shared by every writer: atomic replace with ordinary permissions,
and the check that an output never overwrites an input.

An atomic write goes to a hidden temporary file beside the target, is flushed to
disk, gets the permissions an ordinary new file would get (``0666`` less the
umask; the mode of the file it replaces, if any) and is renamed over the target.
A symbolic link is written through: its target is replaced and the link stays.
Any interruption (an exception, Ctrl-C, or SIGTERM and SIGHUP under the command
line, which turns them into ``KeyboardInterrupt``: ``engine.signals``) removes the
temporary file.

Files a command writes together (a release, its report, its result file) are
replaced all or none (`all_or_nothing`): if any of them fails, every one is put back
as it was before the command.
"""
from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO



def current_umask() -> int:
    """The process's umask (read from /proc where it can, else set and restored)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_target(path: Path) -> Path:
    """The file a write to ``path`` replaces: the final target of a symbolic link."""
    path = Path(path)
    return Path(os.path.realpath(path)) if path.is_symlink() else path


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` (the target of a symbolic link); when the block
    ends without error the file gets ``path``'s mode (or an ordinary new file's) and is
    renamed over it, otherwise it is removed. For writers that open files themselves."""
    target = write_target(Path(path))
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
    blocking = file_in_the_way(target)
    if blocking is not None:
        raise NotADirectoryError(errno.ENOTDIR, f"{blocking} is a file, not a folder",
                                 str(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        keep = stat.S_IMODE(target.stat().st_mode)
    except OSError:
        keep = 0o666 & ~current_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, keep)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_writer(path: str | Path, mode: str = "w", encoding: str | None = "utf-8",
                  newline: str | None = None) -> Iterator[IO]:
    """Open a temporary file beside ``path`` for writing; flushed to disk and renamed over
    ``path`` when the block ends without error, removed otherwise."""
    text = {} if "b" in mode else {"encoding": encoding, "newline": newline}
    with atomic_path(path) as tmp:
        with open(tmp, mode, **text) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``."""
    with atomic_writer(path, "wb") as f:
        f.write(data)


def atomic_write_text(path: Path, text: str, encoding: str = "utf-8") -> None:
    atomic_write_bytes(path, text.encode(encoding))


def atomic_write_chunks(path: Path, chunks: Iterable[str], encoding: str = "utf-8") -> None:
    """Write the text pieces of ``chunks`` one after another (bounded memory), atomically."""
    with atomic_writer(path, "w", encoding=encoding, newline="") as f:
        for piece in chunks:
            f.write(piece)


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one file: equal resolved paths, or one inode (symbolic
    and hard links)."""
    a, b = Path(a), Path(b)
    try:
        if a.resolve() == b.resolve():
            return True
    except (OSError, RuntimeError):
        pass
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def file_in_the_way(path: Path) -> Path | None:
    """The nearest existing ancestor of ``path`` when it is not a folder (a file where a
    folder should be), else None."""
    for parent in Path(path).parents:
        if parent.exists() or parent.is_symlink():
            return None if parent.is_dir() else parent
    return None


def check_output_folder(what: str, path: Path, error: Callable[[str], Exception] = ValueError,
                        folder: bool = False) -> None:
    """Refuse an output whose folder is a file or does not exist (it is never created
    silently: a mistyped folder would scatter releases). ``folder``: the output is
    itself a folder (created, inside an existing one)."""
    path = Path(path)
    parent = write_target(path).parent if not folder else path.parent
    blocking = file_in_the_way(path if not folder else path / "x")
    if blocking is not None:
        raise error(f"{what} {path}: {blocking} is a file, not a folder")
    if not parent.is_dir():
        raise error(f"{what} {path}: the folder {parent} does not exist; create it first "
                    f"(outputs are written only into existing folders)")


def check_outputs(outputs: dict[str, Path | None], inputs: dict[str, Path | None],
                  error: Callable[[str], Exception] = ValueError,
                  folders: Iterable[str] = ()) -> None:
    """Refuse an output that is a folder, whose folder is a file or missing, that is one
    of the inputs, or that is another output.

    ``outputs`` and ``inputs`` map a description (``"--output"``, ``"the data file"``)
    to a path (None: absent); the outputs named in ``folders`` are folders."""
    folders = set(folders)
    outs = [(what, Path(p)) for what, p in outputs.items() if p is not None]
    ins = [(what, Path(p)) for what, p in inputs.items() if p is not None]
    for i, (what, out) in enumerate(outs):
        check_output_folder(what, out, error, folder=what in folders)
        if what in folders:
            if out.exists() and not out.is_dir():
                raise error(f"{what} {out} exists and is not a folder")
            continue
        if out.is_dir():
            raise error(f"{what} {out} is a folder: give a file name")
        for in_what, inp in ins:
            if same_file(out, inp):
                raise error(f"{what} {out} is {in_what}: an output never overwrites "
                            f"an input; choose another file")
        for other_what, other in outs[:i]:
            if same_file(out, other):
                raise error(f"{what} and {other_what} are the same file {out}")


@contextlib.contextmanager
def all_or_nothing(paths: Iterable[str | Path | None]) -> Iterator[None]:
    """Within the block the files at ``paths`` (a folder: the files in it) may be
    written, each atomically (replaced by a new file, as every writer here does: never
    changed in place, which the backups' hard links would see); if the block raises (an error, Ctrl-C, a signal) every one
    is put back as it was before: a replaced file gets its earlier content back, a new
    one is removed. Earlier files are kept as hidden hard links beside them (a copy where
    the file system has none) until the block ends."""
    watched = [write_target(Path(p)) for p in paths if p is not None]
    kept: list[tuple[Path, Path | None]] = []  # (file, its backup or None: it was absent)
    folders: list[tuple[Path, set[str]]] = []  # (folder, the names it held)
    try:
        for p in watched:
            if p.is_dir():
                folders.append((p, {c.name for c in p.iterdir()}))
                kept += [(c, _backup(c)) for c in p.iterdir() if c.is_file()]
            elif not p.exists() and not p.is_symlink():
                kept.append((p, None))
            elif p.is_file():
                kept.append((p, _backup(p)))
        yield
    except BaseException:
        for p, backup in kept:
            with contextlib.suppress(OSError):
                if backup is not None:
                    os.replace(backup, p)
                elif p.is_dir():
                    import shutil
                    shutil.rmtree(p)  # a folder output this block created
                elif p.exists():
                    p.unlink()
        for folder, names in folders:
            with contextlib.suppress(OSError):
                for c in folder.iterdir():
                    if c.name not in names and c.is_file():
                        c.unlink()
        raise
    finally:
        for _, backup in kept:
            if backup is not None:
                with contextlib.suppress(OSError):
                    os.unlink(backup)


def _backup(path: Path) -> Path:
    """A hidden hard link to ``path`` beside it (a copy where links are refused)."""
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".old", dir=path.parent)
    os.close(fd)
    os.unlink(name)
    try:
        os.link(path, name)
    except OSError:
        import shutil
        shutil.copy2(path, name)
    return Path(name)
