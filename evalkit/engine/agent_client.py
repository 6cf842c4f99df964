"""The ambient model client, for agent code that runs outside the runner (pytest-native evals).

Inside a run the runner hands every target its client through `evalkit._runtime.current_client.current_client`;
`get_client()` returns that one. Outside a run it returns a blocking view of one session-wide
`ModelClient` (same retries, cache and cost accounting as the CLI) whose event loop runs in a
daemon thread.

Model tiers: an agent asks for `model="high"` and the judge for `model="low"`. Their ids come
from configuration — SYSTEM_AGENT_MODELS_HIGH / SYSTEM_AGENT_MODELS_LOW, else evalkit's
defaults — and a suite may override them (`use_models(...)`, or `@pytest.mark.eval(models=...)`).
A tier variable that is set but empty means "evals are switched off here" (seed 003's skip rule).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import os
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterator

from evalkit.llm.tiers import TIER_ENV, resolve_tiers

if TYPE_CHECKING:
    from evalkit.llm.client import (  # on use: agent code imports this module; the engine is heavy
        ModelClient,
        SyncClient,
    )
    from evalkit.llm.providers.interface import Provider
    from evalkit.llm.usage import Usage

KEY_ENV = "ANTHROPIC_API_KEY"
DEFAULT_MAX_TOKENS = 1024

# Per-suite tier overrides (set by `use_models`, which the pytest plugin applies per test).
_overrides: contextvars.ContextVar[dict[str, str]] = contextvars.ContextVar("evalkit_tiers", default={})


def model_tiers() -> dict[str, str]:
    """Tier name to model id: per-suite override, else environment, else evalkit's defaults."""
    return resolve_tiers(_overrides.get())


@contextlib.contextmanager
def use_models(high: str | None = None, low: str | None = None, **tiers: str) -> Iterator[dict[str, str]]:
    """Override model tiers for the code inside the block (one suite's own choice)."""
    wanted = {k: v for k, v in {"high": high, "low": low, **tiers}.items() if v}
    token = _overrides.set({**_overrides.get(), **wanted})
    try:
        yield model_tiers()
    finally:
        _overrides.reset(token)


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.provider_factory: Callable[[], Provider] | None = None
        self.cache_dir: str | None = None
        self.no_cache = False
        self.client: ModelClient | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None
        self.used = False


_state = _State()


def configure(
    *, provider: Callable[[], Provider] | None = None, cache_dir: str | None = None, no_cache: bool | None = None
) -> None:
    """Choose how the ambient client is built: a provider factory (tests pass a scripted one),
    the cache folder, or no cache. Takes effect at the next client (call `shutdown()` first)."""
    with _state.lock:
        if provider is not None:
            _state.provider_factory = provider
        if cache_dir is not None:
            _state.cache_dir = cache_dir
        if no_cache is not None:
            _state.no_cache = no_cache


def reset() -> None:
    """Close the ambient client and forget `configure()` choices."""
    shutdown()
    with _state.lock:
        _state.provider_factory, _state.cache_dir, _state.no_cache, _state.used = None, None, False, False


def provider() -> Provider:
    """A fresh provider: the configured factory's, else Anthropic's (MissingKeyError without a key)."""
    if _state.provider_factory is not None:
        return _state.provider_factory()
    from evalkit.engine import anthropic_provider  # on use: agent code imports this module; the engine is heavy

    return anthropic_provider()


def client_settings() -> dict[str, Any]:
    """How `make_client` should build a client here: the same cache choices for both front doors."""
    return {
        "cache_dir": _state.cache_dir,
        "no_cache": _state.no_cache,
        **({"deprecated": None} if _state.provider_factory is not None else {}),
    }


def unavailable_reason() -> str | None:
    """Why model calls cannot be made here (so evals should skip), or None."""
    empty = [var for var in TIER_ENV.values() if var in os.environ and not os.environ[var].strip()]
    if empty:
        return f"{' and '.join(empty)} {'is' if len(empty) == 1 else 'are'} empty: evals are switched off"
    if _state.provider_factory is None and not os.environ.get(KEY_ENV, "").strip():
        return (
            f"no model key: {KEY_ENV} is not set (set it to run evals against the model, "
            f"or run `evalkit demo` for scripted replies)"
        )
    return None


def _ensure() -> tuple[ModelClient, asyncio.AbstractEventLoop]:
    with _state.lock:
        if _state.client is None or _state.loop is None:
            from evalkit.engine import make_client  # on use: agent code imports this module; the engine is heavy

            built = make_client(provider(), **client_settings())
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="evalkit-runtime", daemon=True)
            thread.start()
            _state.client, _state.loop, _state.thread = built, loop, thread
        _state.used = True
        return _state.client, _state.loop


def ambient_client() -> SyncClient:
    """A blocking client on the session-wide ModelClient, with the current model tiers."""
    from evalkit.llm.client import SyncClient  # on use: agent code imports this module; the engine is heavy

    model_client, loop = _ensure()
    tiers = model_tiers()
    bound = model_client.bind(model=tiers["high"], tiers=tiers, max_tokens=DEFAULT_MAX_TOKENS)
    return SyncClient(bound, loop)


def get_client() -> Any:
    """The client of the run in progress (inside a target), else the ambient blocking client."""
    from evalkit._runtime.current_client import current_client  # the target's client: in a run, here or in its worker

    current = current_client.get()
    if current is None:
        return ambient_client()
    if inspect.iscoroutinefunction(getattr(current, "complete", None)):
        raise RuntimeError(
            "get_client() serves synchronous code; an async target gets its client as its second argument"
        )
    return current


def usage() -> Usage | None:
    """Calls, tokens and dollars of the ambient client, if it was used."""
    return _state.client.usage if _state.client is not None and _state.used else None


def shutdown() -> None:
    """Close the ambient client's provider and stop its loop (the pytest plugin does this at exit)."""
    with _state.lock:
        client, loop, thread = _state.client, _state.loop, _state.thread
        _state.client = _state.loop = _state.thread = None
    if loop is None:
        return
    if client is not None:
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(client.provider.aclose(), loop).result(timeout=10)
    loop.call_soon_threadsafe(loop.stop)
    if thread is not None:
        thread.join(timeout=10)
    loop.close()


class _AsyncView:
    """An async `generate` over a blocking client, so engine coroutines (the judge) can use it."""

    batching = False  # its calls are made one by one, never as a Message Batch

    def __init__(self, blocking: Any):
        self._blocking = blocking

    def resolve_model(self, model: str | None) -> str:
        return str(self._blocking.resolve_model(model))

    async def generate(self, request: Any, *, role: str = "target", validate: Any = None) -> Any:
        return await asyncio.to_thread(self._blocking.generate, request, role=role, validate=validate)


def run_with_client(make_coro: Callable[[Any], Any], client: Any = None) -> Any:
    """Run `make_coro(async_client)` to completion from synchronous code and return its result."""
    view = _AsyncView(client if client is not None else get_client())
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make_coro(view))
    # Called from inside an event loop (an async test): run on a helper thread's own loop.
    result: list[Any] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            result.append(asyncio.run(make_coro(view)))
        except BaseException as exc:  # re-raised in the caller's thread
            errors.append(exc)

    worker = threading.Thread(target=work, name="evalkit-runtime-call")
    worker.start()
    worker.join()
    if errors:
        raise errors[0]
    return result[0]
