"""The client of the target call in progress, for agent code that does not take one as an
argument (003's pattern: `CodeGenerateAgent(input=...).run()`; `evalkit.get_client()` reads it).
Set around every target call, in evalkit's process and in the worker process user code runs in
(evalkit/workers/worker_main.py), which is why it lives in a module of its own that imports nothing."""

from __future__ import annotations

import contextvars
from typing import Any

current_client: contextvars.ContextVar[Any] = contextvars.ContextVar("evalkit_client", default=None)
