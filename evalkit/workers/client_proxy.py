"""The client user code gets in a worker process (evalkit/workers/worker_main.py): the suite's defaults
and `complete` / `generate`, answered by the run's own client over the worker's link (see
evalkit/llm/client.py BoundClient, whose calls these mirror)."""

from __future__ import annotations

from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalkit.workers.link import Link


class _Client:
    """What a target running here receives as its client: the suite's defaults, and the calls
    `complete` and `generate` answered by the parent's client (see evalkit/llm/client.py BoundClient)."""

    def __init__(self, link: Link, call_id: int, info: dict[str, Any]):
        self._link, self._call_id = link, call_id
        self.model: str = info["model"]
        self.tiers: dict[str, str] = dict(info.get("tiers") or {})
        self.max_tokens: int = info.get("max_tokens", 1024)
        self.temperature: float | None = info.get("temperature")
        self.repeat: int = info.get("repeat", 0)
        self.batching = False

    def resolve_model(self, model: str | None) -> str:
        """A model id, a tier name (`high`, `low`), or None for the suite's target model."""
        if model is None:
            return self.model
        return self.tiers.get(model, model)

    def _ask(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Future[Any]:
        return self._link.ask(self._call_id, method, args, kwargs)


class SyncClient(_Client):
    """The blocking client of a synchronous target."""

    def complete(self, prompt: Any, **kwargs: Any) -> str:
        """Send a prompt (or a message list) and return the reply's text."""
        return str(self._ask("complete", (prompt,), kwargs).result())

    def generate(self, request: Any, *, role: str = "target", validate: Any = None) -> Any:
        """One model call with a ModelRequest. `validate` is applied here, after the call: a reply it
        refuses raises its ValueError (the parent's cache has no way to ask this process about it).
        The reply keeps its thinking blocks (`thinking`); an agent's own tool loop sends the assistant
        turn back as `reply.assistant_content()`, which the API requires of a thinking model."""
        response = self._ask("generate", (request,), {"role": role}).result()
        if validate is not None:
            validate(response)
        return response


class AsyncClient(_Client):
    """The client of an async target: the same calls, awaited."""

    async def complete(self, prompt: Any, **kwargs: Any) -> str:
        """Send a prompt (or a message list) and return the reply's text."""
        import asyncio

        return await asyncio.wrap_future(self._ask("complete", (prompt,), kwargs))

    async def generate(self, request: Any, *, role: str = "target", validate: Any = None) -> Any:
        """As SyncClient.generate, awaited."""
        import asyncio

        response = await asyncio.wrap_future(self._ask("generate", (request,), {"role": role}))
        if validate is not None:
            validate(response)
        return response
