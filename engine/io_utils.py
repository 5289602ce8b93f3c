"""File helpers shared by every writer: atomic replace with ordinary permissions,
and the check that an output never overwrites an input.

An atomic write goes to a hidden temporary file beside the target, is flushed to
disk, gets the permissions an ordinary new file would get (``0666`` less the
umask; the mode of the file it replaces, if any) and is renamed over the target.
A symbolic link is written through: its target is replaced and the link stays.
Any interruption (an exception, Ctrl-C, or SIGTERM under the command line, which
turns it into ``KeyboardInterrupt``) removes the temporary file.
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


def check_outputs(outputs: dict[str, Path | None], inputs: dict[str, Path | None],
                  error: Callable[[str], Exception] = ValueError) -> None:
    """Refuse an output that is a folder, is one of the inputs, or is another output.

    ``outputs`` and ``inputs`` map a description (``"--output"``, ``"the data file"``)
    to a path (None: absent)."""
    outs = [(what, Path(p)) for what, p in outputs.items() if p is not None]
    ins = [(what, Path(p)) for what, p in inputs.items() if p is not None]
    for i, (what, out) in enumerate(outs):
        if out.is_dir():
            raise error(f"{what} {out} is a folder: give a file name")
        for in_what, inp in ins:
            if same_file(out, inp):
                raise error(f"{what} {out} is {in_what}: an output never overwrites "
                            f"an input; choose another file")
        for other_what, other in outs[:i]:
            if same_file(out, other):
                raise error(f"{what} and {other_what} are the same file {out}")
