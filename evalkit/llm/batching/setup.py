"""Turning Message Batches on for a run: what every front door (CLI, Action) calls for `--batch`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from evalkit.errors import UsageError
from evalkit.llm.batching.batcher import Batcher, PollPolicy
from evalkit.llm.batching.store import BatchStore, store_path_for


def use_batches(
    client: Any, results: Path, *, poll: PollPolicy | None = None, log: Callable[[str], None] | None = None
) -> Batcher:
    """Route `client`'s batchable calls through its provider's Message Batches API, saving the
    submitted batches beside `results` (the results JSON) so an interrupted run can resume them."""
    batches = getattr(client.provider, "batches", None)
    if batches is None:
        raise UsageError(f"--batch: the {client.provider.name} provider has no Message Batches API")
    batcher = Batcher(batches(), BatchStore(store_path_for(results)), poll=poll or PollPolicy(), log=log)
    client.batcher = batcher
    return batcher


def batch_notes(suites: list[Any], target: str | None = None) -> list[str]:
    """What a batch run cannot batch: a callable target's own model calls (said in the output)."""
    callable_targets = [s.name for s in suites if target or (s.target is not None and s.target.function)]
    if not callable_targets:
        return []
    return [
        f"--batch: {', '.join(callable_targets)} call{'s' if len(callable_targets) == 1 else ''} a Python "
        "target whose own model calls go to the Messages API one by one, as usual (at full price); "
        "its judge and extraction calls go through Message Batches"
    ]


def batch_run(client: Any, results: Path, suites: list[Any], target: str | None, echo: Callable[[str], None]) -> Any:
    """`run --batch`: turn batches on for `client`, say what stays interactive, return the client."""
    use_batches(client, results, log=echo)
    for note in batch_notes(suites, target):
        echo(note)
        client.warn(note)
    return client
