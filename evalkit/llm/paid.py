"""The calls a run paid for, by cache key, beside its JSONL (`RESULTS.jsonl.paid`), so that a run
killed before it could write its totals (SIGKILL, a lost machine) is still counted whole when it is
resumed: the replies of the killed part come back from the response cache, and each one paid in an
earlier session of the same run is counted as paid — once — not as a cache hit.

A session that ends in any other way (finished, Ctrl-C, SIGTERM, an error) writes its own totals to
the JSONL and empties the file. Only a request repeated word for word by two cases can be counted
twice (the second case's hit looks like the first's call)."""

from __future__ import annotations

import collections
import os
from pathlib import Path


class PaidLedger:
    def __init__(self, jsonl: Path):
        self.path = Path(f"{jsonl}.paid")

    def start(self) -> None:
        """A new run: nothing paid yet."""
        self.clear()

    def earlier(self) -> collections.Counter[str]:
        """The keys paid in sessions that were killed before writing their totals."""
        try:
            text = self.path.read_text(encoding="ascii", errors="replace")
        except OSError:
            return collections.Counter()
        return collections.Counter(line for line in text.splitlines() if line.strip())

    def record(self, key: str) -> None:
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, f"{key}\n".encode("ascii", "replace"))
            finally:
                os.close(fd)
        except OSError:
            pass  # the count of a later resume is the only thing lost

    def clear(self) -> None:
        try:
            self.path.unlink()
        except OSError:
            pass
