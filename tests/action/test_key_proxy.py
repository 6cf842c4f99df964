"""The loopback proxy adds the real key for the worker's placeholder, and nothing else gets through."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import anthropic

from evalkit.action.proxy import KeyProxy
from evalkit.action.sandbox import worker_environment
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script

REAL = "sk-ant-real-key-0123456789"


def _post(url: str, path: str, headers: dict[str, str]) -> int:
    req = urllib.request.Request(url + path, data=b"{}", method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_sdk_reaches_the_api_through_the_proxy_which_adds_the_key():
    with FakeAnthropicServer(Script().reply("hi")) as fake, KeyProxy(REAL, fake.url) as proxy:
        client = anthropic.Anthropic(api_key=proxy.placeholder, base_url=proxy.url, max_retries=0)
        reply = client.messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": "x"}])
        sent = fake.request_headers[-1]
    assert reply.content[0].text == "hi"
    assert REAL in (sent.get("x-api-key", "") + sent.get("authorization", ""))
    assert proxy.placeholder not in json.dumps(sent)
    assert REAL not in repr(proxy)


def test_a_wrong_key_or_a_path_outside_the_api_is_refused():
    with FakeAnthropicServer(Script().reply("hi")) as fake, KeyProxy(REAL, fake.url) as proxy:
        assert _post(proxy.url, "/v1/messages", {"x-api-key": "guess"}) == 401
        assert _post(proxy.url, "/v1/messages", {}) == 401
        assert _post(proxy.url, "/admin", {"x-api-key": proxy.placeholder}) == 404
        assert fake.request_count == 0


def test_the_worker_environment_is_allow_listed_and_holds_no_secret():
    env = {"PATH": "/bin", "HOME": "/h", "GITHUB_TOKEN": "ghs_x" * 4, "ACTIONS_RUNTIME_TOKEN": "rt" * 8,
           "INPUT_ANTHROPIC_API_KEY": REAL, "ANTHROPIC_API_KEY": REAL, "ANTHROPIC_BASE_URL": "https://api.x",
           "ANTHROPIC_CUSTOM": REAL, "EVALKIT_CACHE": "/c", "GITHUB_WORKSPACE": "/w"}
    out = worker_environment(env, [REAL, "ghs_x" * 4, "rt" * 8], "http://127.0.0.1:1", "evalkit-proxy-1")
    assert out == {"PATH": "/bin", "HOME": "/h", "ANTHROPIC_BASE_URL": "http://127.0.0.1:1",
                   "ANTHROPIC_API_KEY": "evalkit-proxy-1", "EVALKIT_CACHE": "/c", "GITHUB_WORKSPACE": "/w"}
