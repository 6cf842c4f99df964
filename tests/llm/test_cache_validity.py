"""The cache never serves garbage: only replies their caller could use are stored, a damaged or
wrong-shape entry is a miss that the fresh reply rewrites, and a folder that cannot hold the cache
is one warning, not a failed run."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from evalkit.engine import load_suites, make_client, run
from evalkit.llm.cache import ResponseCache
from evalkit.llm.client import ModelClient
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.llm.providers.interface import ModelRequest, ModelResponse
from evalkit.run.runner import RunOptions
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider
from tests.conftest import verdicts

SUITE = """
target: {prompt: "Coach {{ who }}"}
fields: {km: {type: number}}
cases:
  - id: c
    input: {who: runner}
    rubric:
      - {id: kind, judge: The reply is kind}
      - {id: vol, check: {type: field, field: km, max: 50}}
"""


# Extraction without a judged item: its own call.
EXTRACT_ONLY = SUITE.replace("      - {id: kind, judge: The reply is kind}\n", "")


def run_twice(write, tmp_path, script: Script, suite_text: str = SUITE) -> tuple[int, int]:
    """Requests the fake received on a first run and on a second run sharing its cache."""
    suite = write("s.yml", suite_text)
    counts = []
    with FakeAnthropicServer(script) as fake:
        for _ in range(2):
            fake.reset_counts()
            client = make_client(
                AnthropicProvider(api_key="k", base_url=fake.url), cache_dir=tmp_path / "cache", deprecated=None
            )
            run(load_suites([suite]), client, RunOptions())
            counts.append(fake.request_count)
    return counts[0], counts[1]


def test_valid_replies_are_cached(write, tmp_path):
    script = (
        Script()
        .reply("Well done", prompt="Coach")
        .tool_reply("record_fields", {"km": 10})
        .tool_reply("record_verdicts", verdicts({"kind": "pass"}))
    )
    # The target, and the judge and the extraction in one call (the fake joins the two scripted replies)
    assert run_twice(write, tmp_path, script) == (2, 0)
    assert run_twice(write, tmp_path / "separate", script, EXTRACT_ONLY) == (2, 0)  # the target, the extraction


def test_an_invalid_judge_reply_is_not_cached(write, tmp_path):
    # No verdict for `kind`, on the first call and on the corrective retry: both are asked again.
    script = (
        Script()
        .reply("Well done", prompt="Coach")
        .tool_reply("record_fields", {"km": 10})
        .tool_reply("record_verdicts", {"items": []})
    )
    first, second = run_twice(write, tmp_path, script)
    assert first == 3 and second == 2  # the combined call and its corrective retry, both asked again


def test_an_invalid_extraction_reply_is_not_cached(write, tmp_path):
    script = (
        Script()
        .reply("Well done", prompt="Coach")
        .tool_reply("record_fields", {"km": "lots"})
        .tool_reply("record_verdicts", verdicts({"kind": "pass"}))
    )
    first, second = run_twice(write, tmp_path, script)
    assert first == 3 and second == 2  # valid verdicts do not make a combined reply with bad fields valid
    first, second = run_twice(write, tmp_path / "separate", script, EXTRACT_ONLY)
    assert first == 3 and second == 2


def test_a_reply_valid_only_after_the_corrective_retry_caches_the_retry_alone(write, tmp_path):
    calls = []

    def judge(body):
        calls.append(body)
        corrected = len(body["messages"]) > 1
        return verdicts({"kind": "pass"}) if corrected else {"items": []}

    script = (
        Script()
        .reply("Well done", prompt="Coach")
        .tool_reply("record_fields", {"km": 10})
        .respond(judge, tool="record_verdicts")
    )
    first, second = run_twice(write, tmp_path, script)
    # The first combined request is asked again; its corrective turn, identical, comes from the cache.
    assert first == 3 and second == 1


BAD_ENTRIES = {
    "corrupt JSON": "{not json",
    "a JSON list": "[1, 2, 3]",
    "no response": '{"other": 1}',
    "a response that is not an object": '{"response": 7}',
    "missing keys": '{"response": {"model": "m", "input_tokens": 1, "output_tokens": 1}}',
    "wrong types": '{"response": {"text": 5, "model": "m", "input_tokens": 1, "output_tokens": 1}}',
    "a bool for tokens": '{"response": {"text": "x", "model": "m", "input_tokens": true, "output_tokens": 1}}',
    "a list for tool input": (
        '{"response": {"text": "", "model": "m", "input_tokens": 1, "output_tokens": 1, "tool_input": [1]}}'
    ),
    "truncated": json.dumps({"response": ModelResponse(text="hello", model="m").to_dict()})[:40],
}


@pytest.mark.parametrize("damage", BAD_ENTRIES.values(), ids=list(BAD_ENTRIES))
def test_a_bad_entry_is_a_miss_and_is_rewritten(tmp_path, damage):
    request = ModelRequest.from_prompt("hello", model="m")
    key = request.cache_key()
    cache = ResponseCache(tmp_path)
    path = tmp_path / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True)
    path.write_text(damage, encoding="utf-8")
    assert cache.get(key) is None
    provider = ScriptedProvider(Script().reply("fresh"))
    client = ModelClient(provider, cache=cache)
    reply = asyncio.run(client.generate(request))
    assert reply.text == "fresh" and len(provider.requests) == 1
    assert cache.get(key) is not None and cache.get(key).text == "fresh"  # rewritten whole


def test_a_well_formed_entry_is_served(tmp_path):
    request = ModelRequest.from_prompt("hello", model="m")
    cache = ResponseCache(tmp_path)
    cache.put(request.cache_key(), ModelResponse(text="stored", model="m", input_tokens=2, output_tokens=1))
    provider = ScriptedProvider(Script().reply("fresh"))
    reply = asyncio.run(ModelClient(provider, cache=cache).generate(request))
    assert reply.text == "stored" and provider.requests == []


def test_a_cached_reply_its_caller_rejects_is_a_miss(tmp_path):
    # An invalid reply cached by an older evalkit is not served to the judge again.
    request = ModelRequest.from_prompt("judge this", model="m")
    cache = ResponseCache(tmp_path)
    cache.put(request.cache_key(), ModelResponse(text="not verdicts", model="m"))
    provider = ScriptedProvider(Script().reply("good verdicts"))

    def check(reply):
        if reply.text != "good verdicts":
            raise ValueError("unusable")

    reply = asyncio.run(ModelClient(provider, cache=cache).generate(request, validate=check))
    assert reply.text == "good verdicts" and len(provider.requests) == 1
    assert cache.get(request.cache_key()).text == "good verdicts"


GREET = """
target: {prompt: "Greet {{ name }}"}
cases:
  - {id: ada, input: {name: Ada}, checks: [{type: contains, value: Hello}]}
  - {id: bob, input: {name: Bob}, checks: [{type: contains, value: Hello}]}
  - {id: cy, input: {name: Cy}, checks: [{type: contains, value: Hello}]}
"""


def run_with_cache_at(write, folder):
    client = make_client(ScriptedProvider(Script().reply("Hello")), cache_dir=folder, deprecated=None)
    return run(load_suites([write("s.yml", GREET)]), client, RunOptions())


def test_a_file_in_place_of_the_cache_folder_is_one_warning_and_the_run_goes_on(write, tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("not a folder", encoding="utf-8")
    report = run_with_cache_at(write, blocker)
    assert report.verdict == "pass" and report.usage.calls == 3
    cache_warnings = [w for w in report.warnings if "cache" in w]
    assert len(cache_warnings) == 1 and "\n" not in cache_warnings[0]
    assert str(blocker) in cache_warnings[0] and "without it" in cache_warnings[0]
    assert blocker.read_text(encoding="utf-8") == "not a folder"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through folder permissions")
def test_a_folder_without_write_permission_is_one_warning(write, tmp_path):
    folder = tmp_path / "cache"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        report = run_with_cache_at(write, folder)
    finally:
        folder.chmod(0o700)
    assert report.verdict == "pass"
    assert len([w for w in report.warnings if "unusable" in w]) == 1


def test_a_usable_folder_gives_no_warning(write, tmp_path):
    report = run_with_cache_at(write, tmp_path / "cache")
    assert report.verdict == "pass" and not [w for w in report.warnings if "cache" in w]


def test_the_run_keeps_only_the_most_recent_replies_for_identical_requests(monkeypatch):
    # A run of 100,000 cases must not hold 100,000 replies: the memo of finished replies is bounded;
    # a recent identical request is still answered from it, an evicted one is asked again.
    monkeypatch.setattr("evalkit.llm.client.RECENT_REPLIES", 3)
    provider = ScriptedProvider(Script().respond(lambda body: f"echo {body['messages'][0]['content']}"))
    client = ModelClient(provider)

    def ask(prompt: str) -> str:
        return asyncio.run(client.generate(ModelRequest.from_prompt(prompt, model="m"))).text

    for n in range(5):
        assert ask(f"p{n}") == f"echo p{n}"
    assert len(provider.requests) == 5
    assert ask("p4") == "echo p4" and ask("p2") == "echo p2"  # the three most recent: no new call
    assert len(provider.requests) == 5
    assert ask("p0") == "echo p0"  # evicted long ago: asked again
    assert len(provider.requests) == 6
    assert len(client._recent) == 3 and not client._in_flight
