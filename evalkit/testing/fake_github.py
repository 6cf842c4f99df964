"""A loopback fake of GitHub's REST API (issue comments, PR files, the token's user, workflow
artifacts, check runs) on a real HTTP server. Its answers follow GitHub's OpenAPI description (tests validate
them). An artifact's archive is served as GitHub serves it: the API answers 302 with a signed URL on
a storage host, which refuses a request that carries an Authorization header."""

from __future__ import annotations

import json
import re
import threading
import urllib.parse
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from evalkit.testing.fake_checks import CheckRuns, request_problems

_COMMENTS = re.compile(r"/repos/([^/]+)/([^/]+)/issues/(\d+)/comments\Z")
_COMMENT = re.compile(r"/repos/([^/]+)/([^/]+)/issues/comments/(\d+)\Z")
_FILES = re.compile(r"/repos/([^/]+)/([^/]+)/pulls/(\d+)/files\Z")
_ARTIFACTS = re.compile(r"/repos/([^/]+)/([^/]+)/actions/artifacts\Z")
_ARTIFACT_ZIP = re.compile(r"/repos/([^/]+)/([^/]+)/actions/artifacts/(\d+)/zip\Z")
_BLOB = re.compile(r"/_storage/artifacts/(\d+)\Z")
_CHECK_RUNS = re.compile(r"/repos/([^/]+)/([^/]+)/check-runs\Z")
_CHECK_RUN = re.compile(r"/repos/([^/]+)/([^/]+)/check-runs/(\d+)\Z")
_CHECK_NOTES = re.compile(r"/repos/([^/]+)/([^/]+)/check-runs/(\d+)/annotations\Z")
_USER = "/user"
_FILES_LIMIT = 3000  # GitHub never lists more files of a pull request
_EPOCH = datetime(2025, 1, 1, tzinfo=timezone.utc)
_Answer = tuple[int, Any, dict[str, str]]  # status, JSON body, extra headers


@dataclass(frozen=True)
class Recorded:
    """One request the fake received."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    headers: dict[str, str]
    raw_body: str


class FakeGitHub:
    """Serve comments and PR files from memory at `.url`; use as a context manager."""

    def __init__(
        self,
        *,
        bot_login: str = "github-actions[bot]",
        token: str | None = None,
        read_only: bool = False,
        fail_files: bool = False,
        user_login: str | None = None,
        create_barrier: int = 0,
        actions_read: bool = True,
        checks_write: bool = True,
    ):
        # A personal token (`user_login`) writes as that user and answers GET /user; an
        # installation token writes as `bot_login` and gets 403 there, as on GitHub.
        self.bot_login = user_login or bot_login
        self.user_login = user_login
        self.token = token  # when set, other tokens get 401
        self.read_only = read_only
        self.fail_files = fail_files
        self.actions_read = actions_read  # the job's token has `actions: read` (artifacts)
        self.checks_write = checks_write  # the job's token has `checks: write` (check runs)
        self._checks = CheckRuns(app_owner=_user("github", "Organization"))
        self._artifacts: list[dict[str, Any]] = []
        self._archives: dict[int, tuple[bytes, str]] = {}  # id to (zip bytes, signature)
        self.requests: list[Recorded] = []
        self.faults: list[_Answer] = []  # answered, one per request, before anything else
        # Hold each comment POST until this many have arrived: overlapping runs, made certain.
        self._barrier = threading.Barrier(create_barrier, timeout=30) if create_barrier > 1 else None
        self._comments: dict[int, list[dict[str, Any]]] = {}
        self._files: dict[int, list[dict[str, Any]]] = {}
        self._next_id = 1000
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self.url = ""

    def __enter__(self) -> FakeGitHub:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Listen on 127.0.0.1 on a free port, in a daemon thread."""
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        # A short poll interval keeps shutdown (once per test) fast.
        serve = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        serve.start()

    def stop(self) -> None:
        """Stop the server."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def add_comment(
        self,
        number: int,
        body: str,
        *,
        login: str = "octocat",
        user_type: str = "User",
        owner: str = "octo-org",
        repo: str = "hello",
    ) -> dict[str, Any]:
        """Seed a comment on PR `number` as if `login` had written it."""
        with self._lock:
            return self._new_comment(owner, repo, number, body, login=login, user_type=user_type)

    def comments(self, number: int) -> list[dict[str, Any]]:
        """The comments of PR `number`, oldest first."""
        with self._lock:
            return [dict(c) for c in self._comments.get(number, [])]

    def fail_next(
        self, status: int, message: str = "Server Error", headers: dict[str, str] | None = None, times: int = 1
    ) -> None:
        """Answer the next `times` requests with `status` (e.g. 502, or 403 with retry-after)."""
        self.faults += [(status, _error(status, message)[1], dict(headers or {}))] * times

    def check_runs(self) -> list[dict[str, Any]]:
        """Every check run created, oldest first, as GitHub shows it, each with its `annotations` listed."""
        with self._lock:
            return [
                {**self._checks.view(rid), "annotations": self._checks.annotations(rid)} for rid in self._checks.runs
            ]

    def set_pr_files(self, number: int, files: list[dict[str, Any]]) -> None:
        """Seed PR `number`'s files from `{filename, status, previous_filename?}` dicts."""
        self._files[number] = [_diff_entry(f) for f in files]

    def add_artifact(
        self,
        name: str,
        files: dict[str, bytes],
        *,
        head_sha: str = "0" * 40,
        head_branch: str = "main",
        expired: bool = False,
        fork: bool = False,
    ) -> dict[str, Any]:
        """Seed a workflow artifact `name` holding `files` (as actions/upload-artifact would); `fork`:
        uploaded by a run of a fork's pull request (its head repository is another)."""
        import io
        import secrets
        import zipfile

        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for filename, data in files.items():
                archive.writestr(filename, data)
        with self._lock:
            self._next_id += 1
            aid = self._next_id
            stamp = (_EPOCH + timedelta(minutes=aid)).strftime("%Y-%m-%dT%H:%M:%SZ")
            api = self.url or "https://api.github.com"
            artifact = {
                "id": aid,
                "node_id": f"MDg6QXJ0aWZhY3Q{aid}",
                "name": name,
                "size_in_bytes": len(buffer.getvalue()),
                "url": f"{api}/repos/octo-org/hello/actions/artifacts/{aid}",
                "archive_download_url": f"{api}/repos/octo-org/hello/actions/artifacts/{aid}/zip",
                "expired": expired,
                "created_at": stamp,
                "updated_at": stamp,
                "expires_at": (_EPOCH + timedelta(days=90, minutes=aid)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "digest": None,
                "workflow_run": {
                    "id": 4000 + aid,
                    "repository_id": 1,
                    "head_repository_id": 2 if fork else 1,
                    "head_branch": head_branch,
                    "head_sha": head_sha,
                },
            }
            self._artifacts.append(artifact)
            self._archives[aid] = (buffer.getvalue(), secrets.token_hex(8))
            return dict(artifact)

    # -- request handling (called from the server threads) --

    def handle(self, method: str, path: str, query: dict[str, str], body: Any) -> _Answer:
        """Route one request to (status, JSON, headers)."""
        with self._lock:
            if self.faults:
                return self.faults.pop(0)
        if path == _USER and method == "GET":
            if self.user_login is None:
                return _error(403, "Resource not accessible by integration")
            return 200, _user(self.user_login, "User"), {}
        if (m := _COMMENTS.match(path)) and method == "GET":
            with self._lock:
                items = list(self._comments.get(int(m.group(3)), []))
            return self._page(path, query, items)
        if (m := _COMMENTS.match(path)) and method == "POST":
            if self.read_only:
                return _error(403, "Resource not accessible by integration")
            if self._barrier is not None:
                try:
                    self._barrier.wait()
                except threading.BrokenBarrierError:
                    pass
            if not isinstance(body, dict) or not isinstance(body.get("body"), str):
                return _error(422, "Invalid request: body is required")
            with self._lock:
                comment = self._new_comment(
                    m.group(1),
                    m.group(2),
                    int(m.group(3)),
                    body["body"],
                    login=self.bot_login,
                    user_type="User" if self.user_login else "Bot",
                )
            return 201, comment, {"Location": comment["url"]}
        if (m := _COMMENT.match(path)) and method == "PATCH":
            if self.read_only:
                return _error(403, "Resource not accessible by integration")
            if not isinstance(body, dict) or not isinstance(body.get("body"), str):
                return _error(422, "Invalid request: body is required")
            with self._lock:
                return self._update(int(m.group(3)), body["body"])
        if (m := _COMMENT.match(path)) and method == "DELETE":
            if self.read_only:
                return _error(403, "Resource not accessible by integration")
            with self._lock:
                return self._delete(int(m.group(3)))
        if _ARTIFACTS.match(path) and method == "GET":
            if not self.actions_read:
                return _error(403, "Resource not accessible by integration")
            if not set(query) <= {"name", "per_page", "page"}:
                return _error(422, f"Invalid query parameters: {sorted(set(query) - {'name', 'per_page', 'page'})}")
            per_page, page = int(query.get("per_page", 30)), int(query.get("page", 1))
            if not 1 <= per_page <= 100 or page < 1:
                return _error(422, "per_page must lie between 1 and 100")
            with self._lock:
                found = [a for a in reversed(self._artifacts) if query.get("name") in (None, a["name"])]
            return 200, {"total_count": len(found), "artifacts": found[(page - 1) * per_page : page * per_page]}, {}
        if (m := _ARTIFACT_ZIP.match(path)) and method == "GET":
            if not self.actions_read:
                return _error(403, "Resource not accessible by integration")
            aid = int(m.group(3))
            with self._lock:
                artifact = next((a for a in self._artifacts if a["id"] == aid), None)
                archive = self._archives.get(aid)
            if artifact is None or archive is None:
                return _error(404, "Not Found")
            if artifact["expired"]:
                return _error(410, "Artifact has expired")
            return 302, None, {"Location": f"{self.url}/_storage/artifacts/{aid}?sig={archive[1]}"}
        if _CHECK_RUNS.match(path) or _CHECK_RUN.match(path) or _CHECK_NOTES.match(path):
            return self._check_run(method, path, query, body)
        if (m := _FILES.match(path)) and method == "GET":
            if self.fail_files:
                return _error(500, "Internal Server Error")
            return self._page(path, query, self._files.get(int(m.group(3)), [])[:_FILES_LIMIT])
        return _error(404, "Not Found")

    def _check_run(self, method: str, path: str, query: dict[str, str], body: Any) -> _Answer:
        """The check-runs endpoints (evalkit/testing/fake_checks.py has GitHub's rules)."""
        if (m := _CHECK_NOTES.match(path)) and method == "GET":
            with self._lock:
                found = int(m.group(3)) in self._checks.runs
                notes = self._checks.annotations(int(m.group(3))) if found else []
            return self._page(path, query, notes) if found else _error(404, "Not Found")
        if method not in ("POST", "PATCH") or (method == "POST") != bool(_CHECK_RUNS.match(path)):
            return _error(404, "Not Found")
        if self.user_login is not None:  # "OAuth apps and personal access tokens (classic) cannot use this endpoint"
            return _error(403, "Resource not accessible by personal access token")
        if self.read_only or not self.checks_write:
            return _error(403, "Resource not accessible by integration")
        problems = request_problems(body, create=method == "POST")
        if problems:
            return _error(422, "Invalid request.\n\n" + "\n".join(problems))
        with self._lock:
            if method == "POST":
                m = _CHECK_RUNS.match(path)
                assert m is not None
                self._next_id += 1
                return (
                    201,
                    self._checks.create(self._next_id, body, owner=m.group(1), repo=m.group(2), api=self.url),
                    {},
                )
            run_id = int(path.rsplit("/", 1)[1])
            if run_id not in self._checks.runs:
                return _error(404, "Not Found")
            return 200, self._checks.update(run_id, body), {}

    def _page(self, path: str, query: dict[str, str], items: list[Any]) -> _Answer:
        per_page = min(max(int(query.get("per_page", 30)), 1), 100)
        page = max(int(query.get("page", 1)), 1)
        last = max((len(items) + per_page - 1) // per_page, 1)
        links = []
        if page < last:
            links += [(page + 1, "next"), (last, "last")]
        if page > 1:
            links += [(1, "first"), (page - 1, "prev")]
        headers = {}
        if links:

            def href(p: int) -> str:
                args = urllib.parse.urlencode({**query, "per_page": per_page, "page": p})
                return f"{self.url}{path}?{args}"

            headers["Link"] = ", ".join(f'<{href(p)}>; rel="{rel}"' for p, rel in links)
        return 200, items[(page - 1) * per_page : page * per_page], headers

    def _new_comment(
        self, owner: str, repo: str, number: int, body: str, *, login: str, user_type: str
    ) -> dict[str, Any]:
        self._next_id += 1
        cid = self._next_id
        # Each comment a minute after the last, so "newest" is well defined.
        stamp = (_EPOCH + timedelta(minutes=cid)).strftime("%Y-%m-%dT%H:%M:%SZ")
        api = self.url or "https://api.github.com"
        comment = {
            "id": cid,
            "node_id": f"IC_kwDO{cid:08d}",
            "url": f"{api}/repos/{owner}/{repo}/issues/comments/{cid}",
            "html_url": f"https://github.com/{owner}/{repo}/pull/{number}#issuecomment-{cid}",
            "body": body,
            "user": _user(login, user_type),
            "created_at": stamp,
            "updated_at": stamp,
            "issue_url": f"{api}/repos/{owner}/{repo}/issues/{number}",
            "author_association": "NONE" if user_type == "Bot" else "CONTRIBUTOR",
            "performed_via_github_app": None,
        }
        self._comments.setdefault(number, []).append(comment)
        return comment

    def _delete(self, cid: int) -> _Answer:
        for comments in self._comments.values():
            for i, comment in enumerate(comments):
                if comment["id"] == cid:
                    del comments[i]
                    return 204, None, {}
        return _error(404, "Not Found")

    def _update(self, cid: int, body: str) -> _Answer:
        for comments in self._comments.values():
            for comment in comments:
                if comment["id"] == cid:
                    comment["body"] = body
                    comment["updated_at"] = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
                    return 200, comment, {}
        return _error(404, "Not Found")


class _Handler(BaseHTTPRequestHandler):
    fake: FakeGitHub

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
        pass

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def _serve(self, method: str) -> None:
        split = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(split.query))
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8")
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        fake = self.fake
        fake.requests.append(Recorded(method, split.path, query, body, dict(self.headers.items()), raw))
        if (m := _BLOB.match(split.path)) and method == "GET":
            self._storage(int(m.group(1)), query)
            return
        if fake.token is not None and self.headers.get("Authorization") != f"Bearer {fake.token}":
            status, data, headers = _error(401, "Bad credentials")
        elif raw and body is None:
            status, data, headers = _error(400, "Problems parsing JSON")
        else:
            status, data, headers = fake.handle(method, split.path, query, body)
        payload = b"" if status in (204, 302) else json.dumps(data).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(payload)

    def _storage(self, aid: int, query: dict[str, str]) -> None:
        """The signed storage URL of an archive: a request carrying an Authorization header (a
        client that forwarded the GitHub token across the redirect) is refused, as the storage host does."""
        with self.fake._lock:
            archive = self.fake._archives.get(aid)
        if self.headers.get("Authorization") is not None:
            status, payload, kind = 400, b"<Error><Code>InvalidAuthenticationInfo</Code></Error>", "application/xml"
        elif archive is None or query.get("sig") != archive[1]:
            status, payload, kind = 403, b"<Error><Code>AuthenticationFailed</Code></Error>", "application/xml"
        else:
            status, payload, kind = 200, archive[0], "application/zip"
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def _error(status: int, message: str) -> _Answer:
    return status, {"message": message, "documentation_url": "https://docs.github.com/rest", "status": str(status)}, {}


def _user(login: str, user_type: str) -> dict[str, Any]:
    uid = zlib.crc32(login.encode()) % 10_000_000 + 1
    base = f"https://api.github.com/users/{urllib.parse.quote(login)}"
    return {
        "login": login,
        "id": uid,
        "node_id": f"MDQ6VXNlcj{uid}",
        "type": user_type,
        "site_admin": False,
        "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4",
        "gravatar_id": "",
        "url": base,
        "html_url": f"https://github.com/{urllib.parse.quote(login)}",
        "followers_url": f"{base}/followers",
        "following_url": f"{base}/following{{/other_user}}",
        "gists_url": f"{base}/gists{{/gist_id}}",
        "starred_url": f"{base}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{base}/subscriptions",
        "organizations_url": f"{base}/orgs",
        "repos_url": f"{base}/repos",
        "events_url": f"{base}/events{{/privacy}}",
        "received_events_url": f"{base}/received_events",
    }


def _diff_entry(seed: dict[str, Any]) -> dict[str, Any]:
    name = seed["filename"]
    sha = f"{zlib.crc32(name.encode()):08x}" * 5
    entry = {
        "sha": sha,
        "filename": name,
        "status": seed.get("status", "modified"),
        "additions": seed.get("additions", 1),
        "deletions": seed.get("deletions", 0),
        "changes": seed.get("additions", 1) + seed.get("deletions", 0),
        "blob_url": f"https://github.com/octo-org/hello/blob/{sha}/{name}",
        "raw_url": f"https://github.com/octo-org/hello/raw/{sha}/{name}",
        "contents_url": f"https://api.github.com/repos/octo-org/hello/contents/{name}?ref={sha}",
    }
    if "previous_filename" in seed:
        entry["previous_filename"] = seed["previous_filename"]
    return entry
