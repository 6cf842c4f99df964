"""Workload identity federation instead of a stored key: the entrypoint asks the runner's OIDC
endpoint for the job's identity token, exchanges it through the SDK for a short-lived access token,
and its proxy adds that token to the worker's requests; the worker holds none of them.

Loopback fakes play all three parties: the runner's OIDC endpoint (below), Anthropic's token
endpoint and the Messages API (evalkit.testing.fake_anthropic's `TokenExchange`)."""

from __future__ import annotations

import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anthropic
import pytest
from test_action_entrypoint import TOKEN, action, github, greet_script, needles_file, repo  # noqa: F401 - fixtures

from evalkit.action.credential import Federation, federated
from evalkit.action.inputs import parse_inputs
from evalkit.action.proxy import KeyProxy
from evalkit.errors import UsageError
from evalkit.testing.script import Script
from evalkit.testing.token_exchange import ACCESS_TOKEN_PREFIX, TokenExchange

JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJyZXBvOm9jdG8tb3JnL2hlbGxvOnB1bGxfcmVxdWVzdCJ9.c2lnbmF0dXJlLWZha2U"
REQUEST_TOKEN = "oidc-secret"  # what the entrypoint fixture sets as ACTIONS_ID_TOKEN_REQUEST_TOKEN
RULE, ORG = "fdrl_01evalkitTestRule", "7b6c1c1e-5d0a-4a36-9c4e-0b7f2b1f1a11"
FEDERATION_INPUTS = {"anthropic_api_key": "", "anthropic_federation_rule_id": RULE, "anthropic_organization_id": ORG}


class FakeOidcIssuer:
    """The runner's `ACTIONS_ID_TOKEN_REQUEST_URL`: a JWT for a request with the job's request token."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
                issuer.requests.append({"authorization": self.headers.get("Authorization"), "query": query})
                ok = self.headers.get("Authorization") == f"bearer {REQUEST_TOKEN}"
                data = json.dumps({"value": JWT} if ok else {"message": "Bad credentials"}).encode()
                self.send_response(200 if ok else 401)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True

    @property
    def url(self) -> str:  # as the runner gives it: already with a query
        return f"http://127.0.0.1:{self._server.server_address[1]}/_apis/distributedtask/token?api-version=2.0"

    def __enter__(self) -> FakeOidcIssuer:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def trusted(assertion: str) -> bool:
    return assertion == JWT


def test_with_federation_and_no_key_the_run_has_a_verdict_and_the_worker_holds_no_credential(
    action, repo, github, tmp_path, fake_anthropic
):  # noqa: F811 - fixtures
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}, {"filename": "other/x.py"}])
    dump, needles = tmp_path / "env.json", tmp_path / "needles.json"
    secrets = [TOKEN, REQUEST_TOKEN, JWT]
    needles_file(needles, secrets)

    class Exchange(TokenExchange):  # the target must also look for every access token minted before it runs
        def exchange(self, body: Any) -> tuple[int, dict[str, Any]]:
            status, answer = super().exchange(body)
            needles_file(needles, [*secrets, *self.minted])
            return status, answer

    fake_llm = fake_anthropic(greet_script())
    with FakeOidcIssuer() as oidc:
        fake_llm.token_exchange = exchange = Exchange(RULE, ORG, trusted)
        run = action(
            repo,
            "pull_request_opened.json",
            "pull_request",
            github=github,
            anthropic=fake_llm,
            inputs=FEDERATION_INPUTS,
            extra_env={
                "ACTIONS_ID_TOKEN_REQUEST_URL": oidc.url,
                "EVALKIT_TEST_ENV_DUMP": str(dump),
                "EVALKIT_TEST_NEEDLES": str(needles),
            },
        )
        headers = fake_llm.request_headers
    assert run.code == 0, run.log
    assert run.outputs["verdict"] == "pass"
    assert "workload identity federation" in run.log
    # The runner's token was asked for the API's audience, with the job's request token.
    assert oidc.requests and all(r["query"]["audience"] == ["https://api.anthropic.com"] for r in oidc.requests)
    assert all(r["query"]["api-version"] == ["2.0"] for r in oidc.requests)
    # The SDK's exchange: the jwt-bearer grant with the runner's token, the rule and the organisation.
    assert exchange.exchanges and {e["assertion"] for e in exchange.exchanges} == {JWT}
    assert {(e["federation_rule_id"], e["organization_id"]) for e in exchange.exchanges} == {(RULE, ORG)}
    # Every model call went upstream with a minted access token and the OAuth beta, none with a key.
    assert headers
    for sent in headers:
        assert sent["authorization"].removeprefix("Bearer ") in exchange.minted
        assert "oauth-2025-04-20" in sent["anthropic-beta"]
        assert "x-api-key" not in sent
    # The worker: a placeholder key, the proxy's URL, and no credential anywhere it can look.
    seen = json.loads(dump.read_text())
    environ = seen["environ"]
    assert environ["ANTHROPIC_API_KEY"].startswith("evalkit-proxy-")
    assert not [
        k
        for k in environ
        if k.startswith(("ACTIONS_", "INPUT_", "ANTHROPIC_IDENTITY", "ANTHROPIC_FEDERATION", "ANTHROPIC_AUTH"))
    ]
    for place in ("environ", "proc_self", "proc_parent"):
        text = json.dumps(seen[place])
        for secret in [*secrets, *exchange.minted]:
            assert secret not in text, (place, secret[:12])
    assert seen["memory_hits"] == []
    # The job's log shows none of them but in the mask commands the runner consumes.
    for secret in [JWT, *exchange.minted]:
        assert [line for line in run.log.splitlines() if secret in line] == [f"::add-mask::{secret}"]


def test_federation_without_id_token_write_fails_in_one_line_and_a_fork_is_skipped(
    action, repo, github, fake_anthropic
):  # noqa: F811
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    fake_llm = fake_anthropic(greet_script())
    same_repo = action(
        repo, "pull_request_opened.json", "pull_request", github=github, anthropic=fake_llm, inputs=FEDERATION_INPUTS
    )
    fork = action(
        repo,
        "pull_request_synchronize_fork.json",
        "pull_request",
        github=github,
        anthropic=fake_llm,
        inputs=FEDERATION_INPUTS,
    )
    assert fake_llm.request_count == 0
    assert same_repo.code == 2, same_repo.log
    errors = [line for line in same_repo.proc.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "id-token: write" in errors[0], errors
    assert "Traceback" not in same_repo.log
    assert fork.code == 0, fork.log
    assert fork.outputs["verdict"] == "skipped"


def test_a_refused_exchange_is_a_one_line_error(action, repo, github, fake_anthropic):  # noqa: F811
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    fake_llm = fake_anthropic(greet_script())
    with FakeOidcIssuer() as oidc:
        fake_llm.token_exchange = TokenExchange("fdrl_someOtherRule", ORG, trusted)
        run = action(
            repo,
            "pull_request_opened.json",
            "pull_request",
            github=github,
            anthropic=fake_llm,
            inputs=FEDERATION_INPUTS,
            extra_env={"ACTIONS_ID_TOKEN_REQUEST_URL": oidc.url},
        )
        assert fake_llm.request_count == 0
    assert run.code == 2, run.log
    errors = [line for line in run.proc.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "federation exchange was refused" in errors[0], errors
    assert "Traceback" not in run.log and JWT not in run.summary


def test_the_proxy_mints_a_new_token_when_upstream_refuses_the_old_one(fake_anthropic):
    fake = fake_anthropic(Script().reply("hi"))
    with FakeOidcIssuer() as oidc:
        fake.token_exchange = exchange = TokenExchange(RULE, ORG, trusted)
        env = {"ACTIONS_ID_TOKEN_REQUEST_URL": oidc.url, "ACTIONS_ID_TOKEN_REQUEST_TOKEN": REQUEST_TOKEN}
        credential = federated(Federation(RULE, ORG), env, fake.url)
        with KeyProxy(credential, fake.url) as proxy:
            client = anthropic.Anthropic(api_key=proxy.placeholder, base_url=proxy.url, max_retries=0)
            ask = {"model": "claude-haiku-4-5", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}
            assert client.messages.create(**ask).content[0].text == "hi"  # type: ignore[union-attr]
            exchange.revoked.add(exchange.minted[-1])  # revoked before it expired
            assert client.messages.create(**ask).content[0].text == "hi"  # type: ignore[union-attr]
    assert len(exchange.minted) == 2
    assert [h["authorization"] for h in fake.request_headers][-1] == f"Bearer {exchange.minted[-1]}"
    assert all(t.startswith(ACCESS_TOKEN_PREFIX) for t in exchange.minted)


@pytest.mark.parametrize(
    "inputs, message",
    [
        ({"anthropic_federation_rule_id": RULE}, "anthropic_organization_id is empty"),
        ({"anthropic_organization_id": ORG}, "anthropic_federation_rule_id is empty"),
        ({"anthropic_service_account_id": "svac_1"}, "anthropic_service_account_id is a federation setting"),
        ({**FEDERATION_INPUTS, "anthropic_api_key": "sk-ant-api03-x"}, "not both"),
    ],
)
def test_federation_inputs_are_checked(inputs, message):
    with pytest.raises(UsageError, match=message):
        parse_inputs({f"INPUT_{k.upper()}": v for k, v in inputs.items()})


def test_federation_inputs_are_read():
    inputs = parse_inputs(
        {
            f"INPUT_{k.upper()}": v
            for k, v in {
                **FEDERATION_INPUTS,
                "anthropic_workspace_id": "wrkspc_1",
                "oidc_audience": "https://example.test",
            }.items()
        }
    )
    assert inputs.federation == Federation(RULE, ORG, None, "wrkspc_1", "https://example.test")
    assert "fdrl" not in repr(inputs) and inputs.credential is None
