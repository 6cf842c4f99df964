"""The Message Batches endpoints of the loopback fake: create, retrieve, results (JSONL) and
cancel, answering each request of a batch from the same `Script` as `POST /v1/messages`.

A batch ends `processing_delay` seconds after it is created (0: at once). `fail(kind, prompt=...)`
makes chosen requests come back `errored` or `expired` instead of answered (matched on their
prose, as Script rules are; `times` limits how many). `creates` counts the batches created.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from evalkit.testing.api_rules import UnknownModels
from evalkit.testing.script import BAD_SHAPE, Fault, Script, error_payload, request_text

BATCHES_PATH = "/v1/messages/batches"
FAIL_KINDS = ("errored", "expired", "canceled")
_CUSTOM_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")


@dataclass
class _FailRule:
    kind: str
    prompt: str | None
    times: int | None
    used: int = 0

    def takes(self, params: dict[str, Any]) -> bool:
        if self.times is not None and self.used >= self.times:
            return False
        return self.prompt is None or self.prompt in request_text(params)


@dataclass
class _Batch:
    id: str
    requests: list[dict[str, Any]]
    created: float
    created_at: datetime
    canceled: bool = False
    results: list[dict[str, Any]] | None = None
    ended_at: datetime | None = None


@dataclass
class FakeBatches:
    """State of the fake's batches; `usage` adds prompt-cache figures to a reply's usage."""

    script: Script
    processing_delay: float = 0.0
    usage: Callable[[dict[str, Any], dict[str, Any]], None] = lambda body, usage: None
    unknown_models: UnknownModels = "permissive"  # as the server's: a 404 model errors its request
    creates: int = 0
    batched_requests: int = 0
    calls: list[tuple[str, str, str]] = field(default_factory=list)  # method, path, key of each call
    _batches: dict[str, _Batch] = field(default_factory=dict)
    _rules: list[_FailRule] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def fail(self, kind: str, *, prompt: str | None = None, times: int | None = None) -> "FakeBatches":
        """Make batch requests whose prose contains `prompt` end `kind` (errored, expired, canceled)."""
        if kind not in FAIL_KINDS:
            raise ValueError(f"unknown batch result {kind!r}; choose one of {', '.join(FAIL_KINDS)}")
        self._rules.append(_FailRule(kind, prompt, times))
        return self

    @property
    def batch_ids(self) -> list[str]:
        with self._lock:
            return list(self._batches)

    def requests_of(self, batch_id: str) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._batches[batch_id].requests)

    # -- the endpoints: each returns (status, JSON payload) or (status, JSONL bytes) --------

    def create(self, body: Any, base: str) -> tuple[int, Any]:
        requests = body.get("requests") if isinstance(body, dict) else None
        problem = _invalid(requests)
        if problem:
            return 400, _error("invalid_request_error", problem)
        now = datetime.now(timezone.utc)
        batch = _Batch("msgbatch_" + uuid.uuid4().hex[:24], list(requests), time.monotonic(), now)  # type: ignore[arg-type]  # _invalid() above has checked the requests' shape
        with self._lock:
            self._batches[batch.id] = batch
            self.creates += 1
            self.batched_requests += len(batch.requests)
        return 200, self._describe(batch, base)

    def retrieve(self, batch_id: str, base: str) -> tuple[int, Any]:
        batch = self._batches.get(batch_id)
        if batch is None:
            return 404, _error("not_found_error", f"no batch {batch_id}")
        return 200, self._describe(batch, base)

    def cancel(self, batch_id: str, base: str) -> tuple[int, Any]:
        batch = self._batches.get(batch_id)
        if batch is None:
            return 404, _error("not_found_error", f"no batch {batch_id}")
        payload = self._describe(batch, base)
        if payload["processing_status"] != "ended":
            # As the API does: `canceling` now, `ended` (the unprocessed requests canceled) later.
            payload.update(processing_status="canceling", cancel_initiated_at=_iso(datetime.now(timezone.utc)))
            with self._lock:
                batch.canceled = True
        return 200, payload

    def results(self, batch_id: str) -> tuple[int, Any]:
        batch = self._batches.get(batch_id)
        if batch is None:
            return 404, _error("not_found_error", f"no batch {batch_id}")
        if not self._ended(batch):
            return 400, _error("invalid_request_error", f"batch {batch_id} is still in progress")
        lines = [_json_line(r) for r in batch.results or []]
        return 200, "".join(lines).encode()

    # -- internals --------------------------------------------------------------------------

    def _ended(self, batch: _Batch) -> bool:
        with self._lock:
            if batch.results is None and (batch.canceled or time.monotonic() - batch.created >= self.processing_delay):
                batch.results = [self._answer(r, batch.canceled) for r in batch.requests]
                batch.ended_at = datetime.now(timezone.utc)
            return batch.results is not None

    def _answer(self, request: dict[str, Any], canceled: bool) -> dict[str, Any]:
        custom_id, params = request["custom_id"], request["params"]
        if canceled:
            return {"custom_id": custom_id, "result": {"type": "canceled"}}
        rule = next((r for r in self._rules if r.takes(params)), None)
        if rule is not None:
            rule.used += 1
            if rule.kind == "errored":
                return {
                    "custom_id": custom_id,
                    "result": {
                        "type": "errored",
                        "error": _error("api_error", "Internal server error (scripted batch failure)"),
                    },
                }
            return {"custom_id": custom_id, "result": {"type": rule.kind}}
        # A request the API would refuse (evalkit.testing.api_rules) ends `errored` with that error.
        action = self.script.action_for(params, unknown_models=self.unknown_models)
        if isinstance(action, Fault) and action.kind == "bad_shape":
            return {"custom_id": custom_id, "result": {"type": "succeeded", "message": BAD_SHAPE}}
        if isinstance(action, Fault):
            status, payload = (
                error_payload(action)
                if action.kind not in ("drop", "bad_json")
                else (500, _error("api_error", "Internal server error (scripted)"))
            )
            return {"custom_id": custom_id, "result": {"type": "errored", "error": payload}}
        message = self.script.message(params, action)
        self.usage(params, message["usage"])
        return {"custom_id": custom_id, "result": {"type": "succeeded", "message": message}}

    def _describe(self, batch: _Batch, base: str) -> dict[str, Any]:
        ended = self._ended(batch)
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if ended:
            for r in batch.results or []:
                counts[r["result"]["type"]] += 1
        else:
            counts["processing"] = len(batch.requests)
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": counts,
            "created_at": _iso(batch.created_at),
            "expires_at": _iso(batch.created_at + timedelta(hours=24)),
            "ended_at": _iso(batch.ended_at) if batch.ended_at else None,
            "cancel_initiated_at": None,
            "archived_at": None,
            "results_url": f"{base}{BATCHES_PATH}/{batch.id}/results" if ended else None,
        }


def _invalid(requests: Any) -> str | None:
    if not isinstance(requests, list) or not requests:
        return "requests: a non-empty list is required"
    seen: set[str] = set()
    for i, r in enumerate(requests):
        if not isinstance(r, dict) or not isinstance(r.get("params"), dict):
            return f"requests.{i}: an object with `custom_id` and `params` is required"
        cid = r.get("custom_id")
        if not isinstance(cid, str) or not _CUSTOM_ID.fullmatch(cid):
            return f"requests.{i}.custom_id: 1-64 letters, digits, _ or - are required"
        if cid in seen:
            return f"requests.{i}.custom_id: {cid} is not unique in this batch"
        seen.add(cid)
        missing = [k for k in ("model", "max_tokens", "messages") if k not in r["params"]]
        if missing:
            return f"requests.{i}.params: {', '.join(missing)} required"
    return None


def _error(etype: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": etype, "message": message}}


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def _json_line(value: Any) -> str:
    return json.dumps(value) + "\n"
