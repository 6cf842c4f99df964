"""Reading a file a suite names, so that no path can hang or exhaust the machine: only regular
files are opened (a FIFO would block, `/dev/zero` never ends), and no more than the size limit
is read whatever `stat` said. Text is decoded strictly, with the same one-line message everywhere."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from evalkit import limits


def read_suite_text(path: Path, what: str = "file") -> str:
    """The file's text; ValueError (one line naming the path) when it must not be read, OSError when
    it cannot be (missing, no permission), for the caller to word as it words those."""
    info = os.stat(path)  # stat never blocks, where opening a FIFO would
    if not stat.S_ISREG(info.st_mode):
        kind = (
            "a folder"
            if stat.S_ISDIR(info.st_mode)
            else "a FIFO"
            if stat.S_ISFIFO(info.st_mode)
            else "a socket"
            if stat.S_ISSOCK(info.st_mode)
            else "a device"
            if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
            else "not a regular file"
        )
        raise ValueError(f"{path}: {what} is {kind}, not a regular file")
    limit = limits.yaml_max_bytes()
    if info.st_size > limit:
        raise ValueError(
            f"{path}: {what} is {info.st_size:,} bytes, over the limit of {limit:,} (EVALKIT_YAML_MAX_BYTES)"
        )
    # O_NONBLOCK: should the path have become a FIFO since the stat, opening it still returns.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        data = f.read(limit + 1)  # never more, whatever the file has grown to
    if len(data) > limit:
        raise ValueError(f"{path}: {what} is over the limit of {limit:,} bytes (EVALKIT_YAML_MAX_BYTES)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: {what} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
