"""The loopback proxy adds the real key for the worker's placeholder, and nothing else gets through."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import anthropic

from evalkit.action.proxy import KeyProxy
from evalkit.action.sandbox import worker_environment
from evalkit.testing.script import Script

REAL = "sk-ant-real-key-0123456789"


def _post(url: str, path: str, headers: dict[str, str]) -> int:
    req = urllib.request.Request(url + path, data=b"{}", method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_sdk_reaches_the_api_through_the_proxy_which_adds_the_key(fake_anthropic):
    fake = fake_anthropic(Script().reply("hi"))
    with KeyProxy(REAL, fake.url) as proxy:
        client = anthropic.Anthropic(api_key=proxy.placeholder, base_url=proxy.url, max_retries=0)
        reply = client.messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": "x"}])
        sent = fake.request_headers[-1]
    assert reply.content[0].text == "hi"
    assert REAL in (sent.get("x-api-key", "") + sent.get("authorization", ""))
    assert proxy.placeholder not in json.dumps(sent)
    assert REAL not in repr(proxy)


def test_a_wrong_key_or_a_path_outside_the_api_is_refused(fake_anthropic):
    fake = fake_anthropic(Script().reply("hi"))
    with KeyProxy(REAL, fake.url) as proxy:
        assert _post(proxy.url, "/v1/messages", {"x-api-key": "guess"}) == 401
        assert _post(proxy.url, "/v1/messages", {}) == 401
        assert _post(proxy.url, "/admin", {"x-api-key": proxy.placeholder}) == 403
        assert fake.request_count == 0


def test_the_worker_environment_is_allow_listed_and_holds_no_secret():
    env = {
        "PATH": "/bin",
        "HOME": "/h",
        "GITHUB_TOKEN": "ghs_x" * 4,
        "ACTIONS_RUNTIME_TOKEN": "rt" * 8,
        "INPUT_ANTHROPIC_API_KEY": REAL,
        "ANTHROPIC_API_KEY": REAL,
        "ANTHROPIC_BASE_URL": "https://api.x",
        "ANTHROPIC_CUSTOM": REAL,
        "EVALKIT_CACHE": "/c",
        "GITHUB_WORKSPACE": "/w",
    }
    out = worker_environment(env, [REAL, "ghs_x" * 4, "rt" * 8], "http://127.0.0.1:1", "evalkit-proxy-1")
    assert out == {
        "PATH": "/bin",
        "HOME": "/h",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:1",
        "ANTHROPIC_API_KEY": "evalkit-proxy-1",
        "EVALKIT_CACHE": "/c",
        "GITHUB_WORKSPACE": "/w",
    }


def _call(url: str, method: str, path: str, key: str) -> int:
    req = urllib.request.Request(
        url + path, data=b"{}" if method != "GET" else None, method=method, headers={"x-api-key": key}
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


REFUSED = [
    ("GET", "/v1/models"),
    ("GET", "/v1/models/claude-sonnet-4-6"),
    ("GET", "/v1/files"),
    ("POST", "/v1/files"),
    ("GET", "/v1/%2e%2e/admin"),
    ("GET", "/v1/messages/../models"),
    ("POST", "/v1/messages/count_tokens"),
    ("POST", "/v1//messages"),
    ("POST", "/v1/messages%2F"),
    ("DELETE", "/v1/messages"),
    ("GET", "/v1/messages/batches"),
    ("POST", "/v1/messages/batches"),
    ("GET", "/v1/messages/batches/msgbatch_1/results"),
]


def test_only_the_endpoints_a_run_needs_pass(capfd, fake_anthropic):
    fake = fake_anthropic(Script().reply("hi"))
    with KeyProxy(REAL, fake.url) as proxy:
        for method, path in REFUSED:
            assert _call(proxy.url, method, path, proxy.placeholder) == 403, (method, path)
        assert fake.request_count == 0 and fake.models_requests == 0 and not fake.batches.batch_ids
        assert _call(proxy.url, "POST", "/v1/messages", proxy.placeholder) in (200, 400)
    log = capfd.readouterr().err
    assert "evalkit key proxy: refused GET /v1/models: not an endpoint an evalkit run needs" in log
    assert "refused GET '/v1/%2e%2e/admin': not a plain API path" in log
    assert "the batch endpoints pass only for a run with `batch` on" in log
    assert REAL not in log


def test_a_batch_run_reaches_the_batch_endpoints_and_nothing_more(fake_anthropic):
    fake = fake_anthropic(Script().reply("hi"))
    with KeyProxy(REAL, fake.url, batch=True) as proxy:
        client = anthropic.Anthropic(api_key=proxy.placeholder, base_url=proxy.url, max_retries=0)
        batch = client.messages.batches.create(
            requests=[
                {
                    "custom_id": "a",
                    "params": {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]},
                }
            ]
        )
        assert client.messages.batches.retrieve(batch.id).id == batch.id
        assert _call(proxy.url, "GET", "/v1/models", proxy.placeholder) == 403
        assert _call(proxy.url, "GET", "/v1/files", proxy.placeholder) == 403
        client.close()
    assert fake.batches.batch_ids == [batch.id] and fake.models_requests == 0
