"""A provider built on its first call: a run whose every request is served from the response
cache never imports the model SDK (`import anthropic` alone takes about a second).

The first call builds the provider in a worker thread, so the event loop keeps serving cached
cases while the SDK loads; calls that arrive meanwhile wait for the same build."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any, Callable

from evalkit import collector
from evalkit.errors import EvalkitError, ProviderError
from evalkit.providers.base import ModelRequest, ModelResponse, Provider


class LazyProvider:
    """Stands in for the provider `build()` returns, and builds it only when it is needed."""

    def __init__(self, build: Callable[[], Provider], name: str):
        self.name = name
        self._build = build
        self._lock = threading.Lock()
        self._future: concurrent.futures.Future[Provider] | None = None
        self._ready: Provider | None = None  # the provider once built: calls then skip the lock

    @property
    def built(self) -> bool:
        """Whether the real provider exists (its SDK has been imported)."""
        return self._ready is not None

    def _start(self) -> concurrent.futures.Future[Provider]:
        with self._lock:
            if self._future is None:
                self._future = concurrent.futures.Future()
                threading.Thread(target=self._run_build, name="evalkit-provider-build", daemon=True).start()
            return self._future

    def _run_build(self) -> None:
        assert self._future is not None
        try:
            provider = self._build()
            collector.settle()  # the SDK just imported is long-lived: out of the collector's way
            self._ready = provider
            self._future.set_result(provider)
        except BaseException as exc:  # noqa: BLE001 - handed to every caller that waits for it
            self._future.set_exception(exc)

    def prepare(self) -> None:
        """Start building the provider now, in its worker thread, ahead of the first call."""
        self._start()

    def provider(self) -> Provider:
        """The real provider, built now if it is not yet (blocking)."""
        return self._start().result()

    async def generate(self, request: ModelRequest) -> ModelResponse:
        if self._ready is not None:
            return await self._ready.generate(request)
        future = self._start()
        try:
            provider = future.result() if future.done() else await asyncio.wrap_future(future)
        except EvalkitError as exc:
            # A provider that cannot be made (credentials) fails each call, visibly; it is not retried.
            raise ProviderError(f"{self.name} client could not be created: {exc}", retryable=False) from exc
        return await provider.generate(request)

    def batches(self) -> Any:
        """The Message Batches API of the real provider (a batch run always needs the SDK)."""
        return getattr(self.provider(), "batches")()

    async def aclose(self) -> None:
        if self._future is None:
            return
        try:
            provider = await asyncio.wrap_future(self._future)
        except BaseException:  # noqa: BLE001 - nothing was built, nothing to close
            return
        await provider.aclose()
