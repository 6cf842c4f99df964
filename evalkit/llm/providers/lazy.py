"""A provider built on its first call: a run whose every request is served from the response
cache never imports the model SDK (`import anthropic` alone takes about a second).

The build runs on the thread that first needs the provider (the event loop's), never in a thread
of its own: two threads importing one package at once can leave it half-initialised
(`KeyError: 'anthropic'`), so the SDK is imported on one thread only. The loop waits for that
one import; every call after it finds the provider built."""

from __future__ import annotations

from typing import Any, Callable

from evalkit._runtime import gc_pause
from evalkit.errors import EvalkitError, ProviderError
from evalkit.llm.providers.interface import ModelRequest, ModelResponse, Provider


class LazyProvider:
    """Stands in for the provider `build()` returns, and builds it only when it is needed."""

    def __init__(self, build: Callable[[], Provider], name: str):
        self.name = name
        self._build = build
        self._ready: Provider | None = None
        self._failed: BaseException | None = None  # a build that failed fails every call the same way
        self.credentials: tuple[str, str | None] | None = None  # key and base URL, when the maker knows them

    @property
    def built(self) -> bool:
        """Whether the real provider exists (its SDK has been imported)."""
        return self._ready is not None

    def provider(self) -> Provider:
        """The real provider, built now if it is not yet."""
        if self._ready is None:
            if self._failed is not None:
                raise self._failed
            try:
                self._ready = self._build()
            except BaseException as exc:
                self._failed = exc
                raise
            gc_pause.settle()  # the SDK just imported is long-lived: out of the collector's way
        return self._ready

    def prepare(self) -> None:
        """Build the provider now (on this thread), ahead of the first call."""
        self.provider()

    async def generate(self, request: ModelRequest) -> ModelResponse:
        if self._ready is None:
            try:
                self.provider()
            except EvalkitError as exc:
                # A provider that cannot be made (credentials) fails each call, visibly; it is not retried.
                raise ProviderError(f"{self.name} client could not be created: {exc}", retryable=False) from exc
        assert self._ready is not None
        return await self._ready.generate(request)

    def batches(self) -> Any:
        """The Message Batches API of the real provider (a batch run always needs the SDK)."""
        return getattr(self.provider(), "batches")()

    async def aclose(self) -> None:
        if self._ready is not None:
            await self._ready.aclose()
