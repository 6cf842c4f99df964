"""A loopback proxy to the Messages API that adds the credential (an API key, or a federated
access token: evalkit/action/credential.py): the worker running user code reaches the model through
it with a worthless placeholder key and never holds the real one, and can use it only on the
endpoints a run needs (see `refusal`)."""

from __future__ import annotations

import http.client
import json
import re
import secrets
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from evalkit.action.credential import ApiKey, Credential

DEFAULT_UPSTREAM = "https://api.anthropic.com"
# Request headers that carry credentials or belong to one hop only; never forwarded as sent.
_DROP_REQUEST = frozenset(
    {
        "x-api-key",
        "authorization",
        "host",
        "connection",
        "keep-alive",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "content-length",
    }
)
_DROP_RESPONSE = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length"})
_TIMEOUT = 600.0
# The endpoints a run needs, method and exact path: the Messages API, and the Message Batches API
# only for a run with `batch` on. Everything else (models, files, admin, anything encoded to look
# like one of these) is refused: the worker may use the key only for what evalkit itself does.
_MESSAGES = {("POST", "/v1/messages")}
_BATCH_ID = r"[A-Za-z0-9_-]+"
_BATCHES = [
    ("POST", re.compile(r"/v1/messages/batches")),
    ("GET", re.compile(rf"/v1/messages/batches/{_BATCH_ID}")),
    ("POST", re.compile(rf"/v1/messages/batches/{_BATCH_ID}/cancel")),
    ("GET", re.compile(rf"/v1/messages/batches/{_BATCH_ID}/results")),
]
_SAFE_PATH = re.compile(r"/[A-Za-z0-9_/-]*")  # no dots, no percent-encoding, no doubled meaning


def refusal(method: str, target: str, *, batch: bool) -> str | None:
    """Why the proxy must not forward `method target`, or None when a run needs it."""
    path, _, query = target.partition("?")
    if not _SAFE_PATH.fullmatch(path) or "//" in path:
        return f"refused {method} {target[:200]!r}: not a plain API path"
    if (method, path) in _MESSAGES:
        return None
    if batch and any(m == method and pattern.fullmatch(path) for m, pattern in _BATCHES):
        return None
    if any(m == method and pattern.fullmatch(path) for m, pattern in _BATCHES):
        return f"refused {method} {path}: the batch endpoints pass only for a run with `batch` on"
    return f"refused {method} {path}: not an endpoint an evalkit run needs"


class KeyProxy:
    """Serve on 127.0.0.1 (a free port); forward requests under `/v1/` to `upstream` with the
    real credential (an API key string, or a `Credential`), for callers that present `placeholder`.
    Use as a context manager."""

    def __init__(self, credential: Credential | str, upstream: str | None = None, *, batch: bool = False):
        # never in repr, never in a log
        self._credential = ApiKey(credential) if isinstance(credential, str) else credential
        self.batch = batch
        self.upstream = urllib.parse.urlsplit((upstream or DEFAULT_UPSTREAM).rstrip("/"))
        if self.upstream.scheme not in ("http", "https") or not self.upstream.hostname:
            raise ValueError(f"ANTHROPIC_BASE_URL {upstream!r} is not an http(s) URL")
        self.placeholder = "evalkit-proxy-" + secrets.token_hex(16)
        self._server: ThreadingHTTPServer | None = None
        self.url = ""

    def __repr__(self) -> str:
        return f"KeyProxy(upstream={self.upstream.geturl()!r}, url={self.url!r})"

    def __enter__(self) -> KeyProxy:
        handler = type("Handler", (_Handler,), {"proxy": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True, name="evalkit-key-proxy"
        ).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def local_results_url(self, data: bytes) -> bytes:
        """A Message Batch names its results by an absolute upstream URL, which the SDK follows
        as given: rewritten to this proxy's, the worker reads them through the proxy too."""
        try:
            batch = json.loads(data)
        except ValueError:
            return data
        url = batch.get("results_url") if isinstance(batch, dict) else None
        upstream = urllib.parse.urlunsplit((self.upstream.scheme, self.upstream.netloc, self.upstream.path, "", ""))
        if not isinstance(url, str) or not url.startswith(upstream + "/"):
            return data
        batch["results_url"] = self.url + url[len(upstream) :]
        return json.dumps(batch).encode()

    def forward(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, list[tuple[str, str]], bytes]:
        """Send one request upstream with the credential; (status, headers, body). A federated token
        upstream refuses (401: revoked, or expired early) is minted again once."""
        status, kept, data = self._send(method, path, headers, body)
        if status == 401 and self._credential.invalidate():
            status, kept, data = self._send(method, path, headers, body)
        return status, kept, data

    def _send(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, list[tuple[str, str]], bytes]:
        up = self.upstream
        conn_cls = http.client.HTTPSConnection if up.scheme == "https" else http.client.HTTPConnection
        conn = conn_cls(up.hostname or "", up.port, timeout=_TIMEOUT)
        try:
            out = {k: v for k, v in headers.items() if k.lower() not in _DROP_REQUEST}
            auth = self._credential.headers(any(k.lower() == "authorization" for k in headers))
            beta = auth.pop("anthropic-beta", None)
            if beta:  # a federated token needs its beta beside whatever betas the worker's request asked for
                sent = [v for k, v in out.items() if k.lower() == "anthropic-beta"]
                out = {k: v for k, v in out.items() if k.lower() != "anthropic-beta"}
                names = [n.strip() for v in sent for n in v.split(",") if n.strip()]
                out["anthropic-beta"] = ",".join(dict.fromkeys([*names, beta]))
            out.update(auth)
            out["Host"] = up.netloc
            conn.request(method, up.path + path, body=body or None, headers=out)
            resp = conn.getresponse()
            data = resp.read()
            kept = [(k, v) for k, v in resp.getheaders() if k.lower() not in _DROP_RESPONSE]
            return resp.status, kept, data
        finally:
            conn.close()


class _Handler(BaseHTTPRequestHandler):
    proxy: KeyProxy
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - no access log
        pass

    def do_POST(self) -> None:
        self._serve("POST")

    def do_GET(self) -> None:
        self._serve("GET")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def _serve(self, method: str) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        presented = self.headers.get("x-api-key") or self.headers.get("authorization", "").removeprefix("Bearer ")
        if presented != self.proxy.placeholder:
            return self._reply(
                401,
                [("Content-Type", "application/json")],
                b'{"type":"error","error":{"type":"authentication_error","message":"evalkit key proxy: unknown key"}}',
            )
        why = refusal(method, self.path, batch=self.proxy.batch)
        if why is not None:
            print(f"evalkit key proxy: {why}", file=sys.stderr, flush=True)  # one line in the job's log
            message = json.dumps(
                {"type": "error", "error": {"type": "permission_error", "message": f"evalkit key proxy: {why}"}}
            )
            return self._reply(403, [("Content-Type", "application/json")], message.encode())
        try:
            status, headers, data = self.proxy.forward(method, self.path, dict(self.headers.items()), body)
        except OSError as exc:
            # The SDK sees the same failure as a dropped connection would give: retryable.
            message = f'{{"type":"error","error":{{"type":"api_error","message":"upstream: {type(exc).__name__}"}}}}'
            return self._reply(502, [("Content-Type", "application/json")], message.encode())
        except Exception as exc:  # noqa: BLE001 - the credential could not be refreshed (an exchange refused)
            print(
                f"evalkit key proxy: no credential for the request: {type(exc).__name__}", file=sys.stderr, flush=True
            )
            message = json.dumps(
                {
                    "type": "error",
                    "error": {
                        "type": "authentication_error",
                        "message": f"evalkit key proxy: the access token could not be refreshed ({type(exc).__name__})",
                    },
                }
            )
            return self._reply(401, [("Content-Type", "application/json")], message.encode())
        if status == 200 and self.path.startswith("/v1/messages/batches") and not self.path.endswith("/results"):
            data = self.proxy.local_results_url(data)
        self._reply(status, headers, data)

    def _reply(self, status: int, headers: list[tuple[str, str]], data: bytes) -> None:
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
