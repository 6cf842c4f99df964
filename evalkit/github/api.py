"""A tiny GitHub REST client on urllib: JSON bodies, auth headers and Link pagination."""

from __future__ import annotations

import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from evalkit.errors import EvalkitError

DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"

_NEXT_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')
MAX_ATTEMPTS = 4
MAX_WAIT_SECONDS = 60.0  # longer waits (a primary rate limit reset an hour away) are not worth a job's time


class GitHubAPIError(EvalkitError):
    """A GitHub REST call failed; `status` is 0 when no HTTP answer came back."""

    def __init__(self, status: int, message: str):
        self.status = status
        self.message = message
        super().__init__(f"GitHub API error {status}: {message}" if status else f"GitHub API: {message}")


@dataclass(frozen=True)
class Response:
    """One HTTP answer: status, decoded JSON (or None) and headers."""

    status: int
    data: Any
    headers: Mapping[str, str]


def next_link(link_header: str | None) -> str | None:
    """The rel="next" URL of a `Link` header, or None on the last page."""
    if not link_header:
        return None
    for part in link_header.split(","):
        match = _NEXT_LINK.search(part)
        if match:
            return match.group(1)
    return None


class GitHubAPI:
    """GitHub's REST API with a token; paths are relative to `api_url`."""

    def __init__(
        self,
        token: str,
        api_url: str | None = None,
        *,
        timeout: float = 30.0,
        backoff: float = 1.0,
        sleep: Any = time.sleep,
    ):
        # Kept private and out of repr so a logged client never shows the token.
        self._token = token
        self.api_url = (api_url or os.environ.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/")
        self.timeout = timeout
        self.backoff = backoff
        self._sleep = sleep

    def __repr__(self) -> str:
        return f"GitHubAPI(api_url={self.api_url!r})"

    def request(self, method: str, path: str, *, params: Mapping[str, Any] | None = None, body: Any = None) -> Response:
        """Send one request, retried with backoff on 5xx, rate limits (honouring `retry-after`) and
        lost connections; raise GitHubAPIError on a status >= 400 or no answer."""
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                return self._request_once(method, path, params=params, body=body)
            except _Retryable as exc:
                if attempt == MAX_ATTEMPTS or exc.wait > MAX_WAIT_SECONDS:
                    raise exc.error from None
                self._sleep(exc.wait if exc.wait >= 0 else self.backoff * 2 ** (attempt - 1))
        raise AssertionError("unreachable")

    def _request_once(self, method: str, path: str, *, params: Mapping[str, Any] | None, body: Any) -> Response:
        url = path if path.startswith(("http://", "https://")) else self.api_url + path
        if params:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(params)
        self._check_same_origin(url)
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(url, data=data, method=method, headers=self._headers(data is not None))
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return Response(resp.status, _decode(resp.read()), dict(resp.headers.items()))
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            detail = _error_message(raw) or exc.reason
            error = GitHubAPIError(exc.code, self._scrub(f"{method} {_strip_query(url)}: {detail}"))
            wait = _retry_wait(exc.code, dict(exc.headers.items()) if exc.headers else {}, detail)
            if wait is not None:
                raise _Retryable(error, wait) from None
            raise error from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            message = f"{method} {_strip_query(url)}: cannot reach GitHub ({reason})"
            raise _Retryable(GitHubAPIError(0, self._scrub(message)), -1) from None

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        """GET and return the decoded JSON."""
        return self.request("GET", path, params=params).data

    def post(self, path: str, body: Any) -> Any:
        """POST a JSON body and return the decoded JSON."""
        return self.request("POST", path, body=body).data

    def patch(self, path: str, body: Any) -> Any:
        """PATCH a JSON body and return the decoded JSON."""
        return self.request("PATCH", path, body=body).data

    def download(self, path: str, *, max_bytes: int = 64 * 1024 * 1024) -> bytes:
        """GET a redirecting download (an artifact's archive): the API answers 302 with a signed URL
        on a storage host, fetched without the token (it must not leave GitHub's API origin)."""
        url = self.api_url + path
        self._check_same_origin(url)
        opener = urllib.request.build_opener(_NoRedirect)
        location: str | None = None
        body: bytes = b""
        req = urllib.request.Request(url, method="GET", headers=self._headers(False))
        try:
            with opener.open(req, timeout=self.timeout) as resp:
                body = resp.read(max_bytes + 1)
        except urllib.error.HTTPError as exc:
            if exc.code not in (301, 302, 303, 307, 308):
                detail = _error_message(exc.read()) or exc.reason
                raise GitHubAPIError(exc.code, self._scrub(f"GET {_strip_query(url)}: {detail}")) from None
            location = exc.headers.get("Location")
        except (urllib.error.URLError, OSError) as exc:
            raise GitHubAPIError(
                0, self._scrub(f"GET {_strip_query(url)}: cannot reach GitHub ({getattr(exc, 'reason', exc)})")
            ) from None
        if location:
            if urllib.parse.urlsplit(location).scheme not in ("http", "https"):
                raise GitHubAPIError(0, f"GET {_strip_query(url)}: redirected to a non-http(s) URL")
            try:
                with urllib.request.urlopen(
                    urllib.request.Request(location, headers={"User-Agent": "evalkit"}), timeout=self.timeout
                ) as resp:
                    body = resp.read(max_bytes + 1)
            except (urllib.error.URLError, OSError) as exc:
                raise GitHubAPIError(
                    getattr(exc, "code", 0) or 0, f"GET {_strip_query(location)}: {getattr(exc, 'reason', exc)}"
                ) from None
        if len(body) > max_bytes:
            raise GitHubAPIError(0, f"GET {_strip_query(url)}: larger than {max_bytes} bytes")
        return body

    def paginate(self, path: str, params: Mapping[str, Any] | None = None) -> Iterator[Any]:
        """Yield the items of a list endpoint, following `Link: rel="next"` to the last page."""
        resp = self.request("GET", path, params=params)
        while True:
            if not isinstance(resp.data, list):
                raise GitHubAPIError(resp.status, f"GET {_strip_query(path)}: expected a JSON list")
            yield from resp.data
            url = next_link(_header(resp.headers, "Link"))
            if url is None:
                return
            resp = self.request("GET", url)

    def _headers(self, has_body: bool) -> dict[str, str]:
        headers = {
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {self._token}",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": "evalkit",
        }
        if has_body:
            headers["Content-Type"] = "application/json"
        return headers

    def _check_same_origin(self, url: str) -> None:
        # A Link header pointing elsewhere must not receive our token.
        want = urllib.parse.urlsplit(self.api_url)
        got = urllib.parse.urlsplit(url)
        if (got.scheme, got.netloc) != (want.scheme, want.netloc):
            raise GitHubAPIError(0, f"refusing to send the token to {got.scheme}://{got.netloc}")

    def _scrub(self, text: str) -> str:
        return text.replace(self._token, "***") if self._token else text


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Hand a redirect back to the caller: urllib would resend the Authorization header to it."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> None:
        return None


class _Retryable(Exception):
    """A failure worth another try after `wait` seconds (-1: the client's own backoff)."""

    def __init__(self, error: GitHubAPIError, wait: float):
        self.error = error
        self.wait = wait


def _retry_wait(status: int, headers: Mapping[str, str], message: str) -> float | None:
    """Seconds to wait before retrying (-1: back off), or None when retrying cannot help.

    GitHub's guidance: 5xx may be retried; a secondary rate limit (403 or 429) says how long in
    `retry-after`, or a primary one by `x-ratelimit-reset` with `x-ratelimit-remaining: 0`."""
    retry_after = _header(headers, "retry-after")
    if status in (403, 429):
        if retry_after is not None:
            try:
                return max(0.0, float(retry_after))
            except ValueError:
                return -1
        if _header(headers, "x-ratelimit-remaining") == "0":
            try:
                return max(0.0, float(_header(headers, "x-ratelimit-reset") or "") - time.time())
            except ValueError:
                return -1
        return -1 if status == 429 or "secondary rate limit" in message.lower() else None
    if status >= 500:
        return -1
    return None


def _decode(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _error_message(raw: bytes) -> str:
    data = _decode(raw)
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return str(data["message"])
    return ""


def _strip_query(url: str) -> str:
    return url.split("?", 1)[0]


def _header(headers: Mapping[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name.lower():
            return value
    return None
