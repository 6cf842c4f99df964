"""A loopback fake of the Anthropic Messages API: a real HTTP server in a thread that answers
`POST /v1/messages` from a `Script`, so the real `anthropic` client can be tested offline.
As a command (a team's own CI, no key): `python -m evalkit.testing.fake_anthropic --port 8765`
(what it answers: `evalkit.testing.offline_server`), or `--script FILE` to play a script file
(`evalkit.testing.script_file`: replies by turn, tool_use steps, verdicts).

    with FakeAnthropicServer(Script().reply("hello")) as fake:
        client = anthropic.Anthropic(api_key="test", base_url=fake.url, max_retries=0)

It answers exactly as the in-process `ScriptedProvider` does (same `Script`, same payload
builders); only the transport differs. Faults: 429 (with `retry-after` when the fault has
one), 529, 500, 400, "drop" (the socket is closed with no reply), "bad_json" (a 200 whose
body is cut short) and "bad_shape" (a 200 whose JSON is not shaped like a message). With
`rate_limit=RateLimit(...)` it also meters requests with a token bucket, as the API does
(`anthropic-ratelimit-*` headers, 429 with `retry-after`).

The Message Batches endpoints (`fake.batches`, see `evalkit.testing.fake_batches`) answer from
the same script, after `batch_delay` seconds. Requests that mark a prefix with `cache_control`
report prompt-cache writes and reads (see `evalkit.testing.prompt_cache`).
`POST /v1/messages/count_tokens` answers the input tokens the fake would report for the request
(`fake.counted` keeps the bodies). Structured-output requests (`output_config.format`) and thinking
are answered as `evalkit.testing.script` says; `GET /v1/models` lists each model's capabilities.

Workload identity federation: with `fake.token_exchange = TokenExchange(...)` (the rule, the
organisation and the identity tokens it trusts; evalkit.testing.token_exchange), `POST /v1/oauth/token`
answers the `jwt-bearer` exchange the SDK sends and mints short-lived `sk-ant-oat01-` tokens; a request
presenting one must send the `oauth-2025-04-20` beta, and an unknown or revoked one gets a 401.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import threading
import time
import traceback
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from evalkit.exit_codes import ExitCode
from evalkit.testing.api_rules import (
    UNKNOWN_MODELS_CHOICES,
    UnknownModels,
    refusal,
)
from evalkit.testing.fake_batches import BATCHES_PATH, FakeBatches
from evalkit.testing.fake_models import DEFAULT_MODELS, model_info
from evalkit.testing.offline_server import offline_script
from evalkit.testing.prompt_cache import PromptCache
from evalkit.testing.rate_limit import RateLimit
from evalkit.testing.script import BAD_SHAPE, Fault, Script, error_payload, estimate_tokens, request_text
from evalkit.testing.script_file import ScriptFileError, load_script
from evalkit.testing.token_exchange import ACCESS_TOKEN_PREFIX, OAUTH_BETA, TOKEN_PATH, TokenExchange

MESSAGES_PATH = "/v1/messages"
MODELS_PATH = "/v1/models"


class FakeAnthropicServer:
    """A Messages-API server on 127.0.0.1 (a free port), answering from `script`.

    Requests are held to the API's published rules (evalkit.testing.api_rules); a model id the rules do
    not know is answered as an older, permissive model would be, or with the API's 404
    (`unknown_models="404"`)."""

    def __init__(
        self,
        script: Script | None = None,
        *,
        latency: float = 0.0,
        rate_limit: RateLimit | None = None,
        batch_delay: float = 0.0,
        port: int = 0,
        unknown_models: UnknownModels = "permissive",
    ):
        if unknown_models not in UNKNOWN_MODELS_CHOICES:
            raise ValueError(f"unknown_models={unknown_models!r}; choose one of {', '.join(UNKNOWN_MODELS_CHOICES)}")
        self.script = script if script is not None else Script()
        self.unknown_models: UnknownModels = unknown_models
        self.prompt_cache = PromptCache()
        self.batches = FakeBatches(
            self.script, processing_delay=batch_delay, usage=self.prompt_cache.apply, unknown_models=unknown_models
        )
        self.latency = latency
        self.port = port  # 0: a free port, chosen when the server starts
        self.rate_limit = rate_limit  # a token bucket: 429 with retry-after over it, headers on every reply
        self.models: list[dict[str, Any]] | None = list(DEFAULT_MODELS)  # None: /v1/models answers 404
        self.models_requests = 0
        self.token_exchange: TokenExchange | None = None  # set: POST /v1/oauth/token mints access tokens
        self.errors: list[str] = []  # tracebacks of responders that raised (answered as 500)
        self.peak_in_flight = 0  # most requests waiting out `latency` at once: overlap, without timing
        self._in_flight = 0
        self._requests: list[dict[str, Any]] = []
        self.counted: list[dict[str, Any]] = []  # bodies sent to /v1/messages/count_tokens
        self._headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> "FakeAnthropicServer":
        if self._server is not None:
            return self
        server = _Server(("127.0.0.1", self.port), _Handler)
        server.fake = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-anthropic", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.close_connections()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> "FakeAnthropicServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what tests look at ------------------------------------------------------------

    @property
    def url(self) -> str:
        """Base URL to pass as `base_url=` or ANTHROPIC_BASE_URL."""
        if self._server is None:
            raise RuntimeError("FakeAnthropicServer is not running: call start() or use `with`")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """A snapshot of the JSON bodies received on /v1/messages, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def request_headers(self) -> list[dict[str, str]]:
        """A snapshot of the headers (lower-cased names) of those requests."""
        with self._lock:
            return list(self._headers)

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self._requests)

    def reset_counts(self) -> None:
        """Forget the recorded requests (the script's rules keep their use counts)."""
        with self._lock:
            self._requests.clear()
            self._headers.clear()
            self.errors.clear()

    def _record(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self._requests.append(body)
            self._headers.append(headers)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # Bursts of 32-64 new connections must not overflow the listen backlog (default 5),
    # or clients wait out SYN retransmits.
    request_queue_size = 256
    fake: FakeAnthropicServer

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._conns: set[socket.socket] = set()
        self._conns_lock = threading.Lock()

    def track(self, conn: socket.socket, alive: bool) -> None:
        with self._conns_lock:
            (self._conns.add if alive else self._conns.discard)(conn)

    def close_connections(self) -> None:
        """Unblock handler threads parked on idle keep-alive connections."""
        with self._conns_lock:
            conns = list(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive; every reply carries Content-Length
    server_version = "FakeAnthropic/1.0"
    disable_nagle_algorithm = True  # headers and body go out in two writes
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.server.track(self.connection, True)

    def finish(self) -> None:
        self.server.track(self.connection, False)
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet by design
        pass

    def do_GET(self) -> None:  # noqa: N802
        self._read_body()
        path = self.path.split("?", 1)[0].rstrip("/")
        if not self._authorised():
            return
        if self.command == "GET" and path.startswith(BATCHES_PATH + "/"):
            self._batch_call(path[len(BATCHES_PATH) + 1 :].split("/"), None)
            return
        fake = self.server.fake
        if self.command == "GET" and path == MODELS_PATH and fake.models is not None:
            with fake._lock:
                fake.models_requests += 1
            data = [model_info(m) for m in fake.models]
            self._send_json(
                200,
                {
                    "data": data,
                    "has_more": False,
                    "first_id": data[0]["id"] if data else None,
                    "last_id": data[-1]["id"] if data else None,
                },
            )
            return
        self._not_found()

    do_PUT = do_DELETE = do_PATCH = do_GET

    def do_POST(self) -> None:  # noqa: N802
        raw = self._read_body()
        path = self.path.split("?", 1)[0].rstrip("/")
        if path == TOKEN_PATH and self.server.fake.token_exchange is not None:
            try:
                exchange: Any = json.loads(raw or b"null")
            except ValueError:
                exchange = None
            self._send_json(*self.server.fake.token_exchange.exchange(exchange))
            return
        if not self._authorised():
            return
        if path == BATCHES_PATH or path.startswith(BATCHES_PATH + "/"):
            try:
                body = json.loads(raw or b"null")
            except ValueError as exc:
                self._send_error(400, "invalid_request_error", f"request body is not valid JSON: {exc}")
                return
            self._batch_call([p for p in path[len(BATCHES_PATH) + 1 :].split("/") if p], body or {})
            return
        if path == MESSAGES_PATH + "/count_tokens":
            self._count_tokens(raw)
            return
        if path != MESSAGES_PATH:
            self._not_found()
            return
        try:
            body = json.loads(raw or b"null")
            if not isinstance(body, dict):
                raise ValueError("the request body must be a JSON object")
        except ValueError as exc:
            self._send_error(400, "invalid_request_error", f"request body is not valid JSON: {exc}")
            return
        fake = self.server.fake
        arrived = time.monotonic()  # a prompt-cache prefix is read only if written before this
        fake._record(body, {k.lower(): v for k, v in self.headers.items()})
        limit_headers: dict[str, str] = {}
        if fake.rate_limit is not None:
            admitted, limit_headers = fake.rate_limit.admit(len(raw) // 4)
            if not admitted:
                self._send_json(
                    429,
                    {
                        "type": "error",
                        "error": {
                            "type": "rate_limit_error",
                            "message": "Number of requests has exceeded your rate limit (fake)",
                        },
                    },
                    limit_headers,
                )
                return
        if fake.latency:
            with fake._lock:
                fake._in_flight += 1
                fake.peak_in_flight = max(fake.peak_in_flight, fake._in_flight)
            try:
                time.sleep(fake.latency)  # on this handler's own thread: concurrent requests overlap
            finally:
                with fake._lock:
                    fake._in_flight -= 1
        try:
            action = fake.script.action_for(body, unknown_models=fake.unknown_models)
        except Exception as exc:  # a responder raised: report it rather than hang the client
            fake.errors.append(traceback.format_exc())
            self._send_error(500, "api_error", f"scripted responder raised {exc!r}")
            return
        if isinstance(action, Fault):
            self._send_fault(action)
        else:
            payload = fake.script.message(body, action)
            fake.prompt_cache.apply(body, payload["usage"], arrived)
            self._send_json(200, payload, limit_headers)

    def _batch_call(self, parts: list[str], body: Any) -> None:
        """POST batches (create), GET batches/ID, GET batches/ID/results, POST batches/ID/cancel."""
        batches = self.server.fake.batches
        base = f"http://{self.headers.get('Host') or '127.0.0.1'}"
        key = self.headers.get("x-api-key") or self.headers.get("authorization", "").removeprefix("Bearer ")
        batches.calls.append((self.command, self.path, key))
        if body is not None and not parts:
            status, payload = batches.create(body, base)
        elif body is None and len(parts) == 1:
            status, payload = batches.retrieve(parts[0], base)
        elif body is None and len(parts) == 2 and parts[1] == "results":
            status, payload = batches.results(parts[0])
        elif body is not None and len(parts) == 2 and parts[1] == "cancel":
            status, payload = batches.cancel(parts[0], base)
        else:
            self._not_found()
            return
        if isinstance(payload, bytes):
            self._send_bytes(status, payload, "application/binary")
        else:
            self._send_json(status, payload)

    # -- helpers -----------------------------------------------------------------------

    def _authorised(self) -> bool:
        """A federated access token is held to the API's rules (the OAuth beta, a live token); a key is
        not checked (tests pass any)."""
        bearer = self.headers.get("authorization", "")
        token = bearer[len("Bearer ") :] if bearer.startswith("Bearer ") else ""
        federation = self.server.fake.token_exchange
        if not token.startswith(ACCESS_TOKEN_PREFIX) and federation is None:
            return True
        if not token.startswith(ACCESS_TOKEN_PREFIX):
            if self.headers.get("x-api-key") or token:
                return True  # a key: the fake takes any
            self._send_error(401, "authentication_error", "no credential: send x-api-key or a bearer token")
            return False
        betas = {b.strip() for b in (self.headers.get("anthropic-beta") or "").split(",")}
        if OAUTH_BETA not in betas:
            self._send_error(401, "authentication_error", f"an OAuth access token needs the {OAUTH_BETA} beta")
            return False
        if federation is not None and not federation.accepts(token):
            self._send_error(401, "authentication_error", "invalid or expired access token")
            return False
        return True

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _not_found(self) -> None:
        self._send_error(
            404,
            "not_found_error",
            f"the fake serves only POST {MESSAGES_PATH}, GET {MODELS_PATH} "
            f"and the batch endpoints, not {self.command} {self.path}",
        )

    def _send_fault(self, fault: Fault) -> None:
        if fault.kind == "drop":
            # No status line at all: the client sees the connection end (a connection error).
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if fault.kind == "bad_json":
            self._send_bytes(200, b'{"id": "msg_trunc', "application/json")
            return
        if fault.kind == "bad_shape":
            self._send_json(200, BAD_SHAPE)
            return
        status, payload = error_payload(fault)
        headers = {}
        if fault.retry_after is not None:
            ra = fault.retry_after
            headers["retry-after"] = str(int(ra)) if float(ra).is_integer() else repr(float(ra))
        if status == 529:
            headers["x-should-retry"] = "true"
        self._send_json(status, payload, headers)

    def _send_error(self, status: int, etype: str, message: str) -> None:
        self._send_json(status, {"type": "error", "error": {"type": etype, "message": message}})

    def _count_tokens(self, raw: bytes) -> None:
        """`POST /v1/messages/count_tokens`: the input tokens the fake reports for the same request, which
        is held to the same rules as a message's (with the token counting request type's keys)."""
        fake = self.server.fake
        try:
            body = json.loads(raw or b"null")
            if not isinstance(body, dict):
                raise ValueError("the request body must be a JSON object")
        except ValueError as exc:
            self._send_error(400, "invalid_request_error", f"bad count_tokens request: {exc}")
            return
        refused = refusal(body, endpoint="count_tokens", unknown_models=fake.unknown_models, signer=fake.script.signer)
        if refused is not None:
            self._send_error(refused.status, refused.type, refused.message)
            return
        fake.counted.append(body)
        self._send_json(200, {"input_tokens": estimate_tokens(request_text(body))})

    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        self._send_bytes(status, json.dumps(payload).encode(), "application/json", headers)

    def _send_bytes(self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", "req_" + uuid.uuid4().hex[:24])
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m evalkit.testing.fake_anthropic",
        description="A loopback fake of the Anthropic Messages API (no key, no network).",
    )
    parser.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: any free port); default 8765")
    text = parser.add_mutually_exclusive_group()
    text.add_argument("--reply", default="ok", help="the text every target request gets (default: ok)")
    text.add_argument("--reply-file", type=Path, help="a file whose text every target request gets")
    text.add_argument(
        "--script",
        type=Path,
        help="a script file (YAML or JSON) to play: replies by turn and "
        "prompt, tool_use steps, verdicts (evalkit.testing.script_file)",
    )
    parser.add_argument(
        "--verdict",
        choices=["pass", "fail"],
        default=None,
        help="the verdict every judged criterion gets (default: pass; with --script, its `verdict:`)",
    )
    parser.add_argument("--latency", type=float, default=0.0, help="seconds each reply waits (default 0)")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port {args.port}: not a port number")
    if args.script is not None:
        if args.verdict is not None:
            parser.error("--verdict with --script: give the verdicts in the script file (verdict:, verdicts:)")
        try:
            script = load_script(args.script)
        except ScriptFileError as exc:  # one line, no usage text: the file is what to fix
            print(f"fake_anthropic: --script {exc}", file=sys.stderr)
            sys.exit(ExitCode.USAGE)
    else:
        try:
            reply = args.reply_file.read_text(encoding="utf-8") if args.reply_file else args.reply
        except (OSError, UnicodeDecodeError) as exc:
            parser.error(f"--reply-file: {exc}")
        script = offline_script(reply, args.verdict or "pass")
    fake = FakeAnthropicServer(script, latency=args.latency, port=args.port)
    try:
        fake.start()
    except OSError as exc:
        parser.error(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}")
    print(f"fake Anthropic API at {fake.url} (ANTHROPIC_BASE_URL); Ctrl-C stops it", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
    sys.exit(ExitCode.PASSED)


if __name__ == "__main__":  # `python -m evalkit.testing.fake_anthropic`: the offline server
    main()
