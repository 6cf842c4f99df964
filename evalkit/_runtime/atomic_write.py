"""Writing a file whole or not at all: into a temporary file beside it, flushed to the disk, then
renamed over it. A full disk, a kill or a crash leaves the previous file or the whole new one,
never half of one; an error is an OutputError naming the file and what was kept."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import IO, Callable, cast

from evalkit._runtime.redaction import RedactingStream, redacted, redacting
from evalkit.errors import OutputError


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_MODE = 0o666 & ~_umask()  # what open() would give a new file (mkstemp's 0600 would hide results)


def write_atomic(path: str | Path, content: str | Callable[[IO[str]], None], *, encoding: str = "utf-8") -> Path:
    """Write `content` (text, or a function that writes to the open file) to `path`, atomically."""
    path = Path(path)
    existed = path.exists()
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
        with os.fdopen(fd, "w", encoding=encoding) as f:
            if isinstance(content, str):
                f.write(redacted(content))
            elif redacting():  # the secrets evalkit knows are replaced in whatever is written, across
                stream = RedactingStream(f)  # the writer's pieces (evalkit/_runtime/redaction.py)
                content(cast(IO[str], stream))
                stream.drain()
            else:
                content(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _MODE)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        kept = f"the previous {path.name} is unchanged" if existed else "nothing was written there"
        raise OutputError(f"could not write {path}: {exc.strerror or exc} ({kept})") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    _sync_folder(path.parent)
    return path


def _sync_folder(folder: Path) -> None:
    """The rename itself on the disk (best effort: not every system can open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def probe_writable(folder: Path) -> str | None:
    """Why no file can be created in `folder` (read-only, no permission, full), or None: a file is
    made and removed, as the results' own will be."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".evalkit-probe-", dir=folder)
    except OSError as exc:
        return exc.strerror or str(exc)
    try:
        os.write(fd, b"\n")
    except OSError as exc:
        return exc.strerror or str(exc)
    finally:
        os.close(fd)
        try:
            os.unlink(tmp)
        except OSError:
            pass
    return None
